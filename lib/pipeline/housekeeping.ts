import { failStaleSends } from "../db/envelopes";
import { sweepForks } from "./forks";
import type { TurnDeps } from "./respond";

/**
 * What the scheduler does on each timer tick besides delivering due envelopes:
 * fork idle timeouts and expiry, and failing sends a crashed process left
 * half-done (older than one lease), so nothing stays "processing" forever.
 */
export async function housekeeping(deps: TurnDeps, leaseMs: number, now = new Date()) {
  await sweepForks(deps, now);
  await failStaleSends(deps.db, new Date(now.getTime() - leaseMs));
}
