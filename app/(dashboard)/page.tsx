import { Suspense } from "react";
import { AfterHydration } from "./_lib/after-hydration";
import { ConversationList } from "./conversations/conversation-list";

export default function HomePage() {
  const loading = (
    <>
      <h1>Conversations</h1>
      <p className="muted">Loading…</p>
    </>
  );
  // The list reads ?botId= from the address (useSearchParams); it shares queries with the nav and shortcuts.
  return (
    <Suspense fallback={loading}>
      <AfterHydration fallback={loading}>
        <ConversationList />
      </AfterHydration>
    </Suspense>
  );
}
