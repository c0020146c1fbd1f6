import { TurnView } from "./turn-view";

export default async function TurnPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TurnView id={Number(id)} />;
}
