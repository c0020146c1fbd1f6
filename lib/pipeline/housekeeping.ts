import { failStaleSends } from "../db/envelopes";
import { deleteExpiredSessions } from "../db/operators";
import { sweepForks } from "./forks";
import type { TurnDeps } from "./respond";

/**
 * What the scheduler does on each timer tick besides delivering due envelopes:
 * fork idle timeouts and expiry, and failing sends a crashed process left
 * half-done (older than one lease), so nothing stays "processing" forever, and
 * purging expired operator sessions (at most once a minute).
 */
export async function housekeeping(deps: TurnDeps, leaseMs: number, now = new Date()) {
  await sweepForks(deps, now);
  await failStaleSends(deps.db, new Date(now.getTime() - leaseMs));
  const last = lastPurge.get(deps.db) ?? 0;
  if (now.getTime() - last >= 60_000) {
    lastPurge.set(deps.db, now.getTime());
    await deleteExpiredSessions(deps.db, now);
  }
}

const lastPurge = new WeakMap<object, number>();
