import { EnvelopeThreadView } from "./envelope-thread";

export default async function EnvelopeThreadPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EnvelopeThreadView id={Number(id)} />;
}
