import { DatasetsView } from "./datasets-view";

/** `?conversation=<id>` prefills a new dataset with that conversation's turns. */
export default async function ReplaysPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { conversation } = await searchParams;
  return <DatasetsView initialConversation={typeof conversation === "string" ? conversation : ""} />;
}
