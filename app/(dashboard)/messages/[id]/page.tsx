import { preload } from "react-dom";
import { ThreadView } from "./thread-view";

export default async function ThreadPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const messageId = Number(id);
  // The browser starts fetching the thread with the page's scripts instead of after hydration;
  // the view's own fetch of the same URL is then answered by this preload.
  if (Number.isSafeInteger(messageId) && messageId > 0)
    preload(`/api/v1/messages/${messageId}/thread`, { as: "fetch", crossOrigin: "anonymous" });
  return <ThreadView id={messageId} />;
}
