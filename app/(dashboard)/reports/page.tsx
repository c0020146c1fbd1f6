import { Suspense } from "react";
import { ReportsView } from "./reports-view";

export default function ReportsPage() {
  // The filters live in the address (useSearchParams): rendered on the client.
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <ReportsView />
    </Suspense>
  );
}
