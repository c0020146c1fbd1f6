import { DatasetsView } from "./datasets-view";

/** `?conversation=<id>` prefills a new dataset with that conversation's turns; `?dataset=<id>` opens one (a search's). */
export default async function ReplaysPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { conversation, dataset } = await searchParams;
  return (
    <DatasetsView
      initialConversation={typeof conversation === "string" ? conversation : ""}
      initialDataset={typeof dataset === "string" && /^\d+$/.test(dataset) ? Number(dataset) : null}
    />
  );
}
