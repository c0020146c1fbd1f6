import { Suspense } from "react";
import { ConversationList } from "./conversations/conversation-list";

export default function HomePage() {
  // The list reads ?botId= from the address (useSearchParams).
  return (
    <Suspense>
      <ConversationList />
    </Suspense>
  );
}
