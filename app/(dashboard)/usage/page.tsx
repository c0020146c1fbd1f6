import { UsageView } from "./usage-view";

export default function UsagePage() {
  return <UsageView />;
}
