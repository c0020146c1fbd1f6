import { ConversationView } from "./conversation-view";

export default async function ConversationPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ message?: string }>;
}) {
  const { id } = await params;
  // ?message=<id> (from search or the reply tree) opens the timeline at that message.
  const focus = Number((await searchParams).message);
  return <ConversationView id={Number(id)} focusMessageId={Number.isInteger(focus) && focus > 0 ? focus : undefined} />;
}
