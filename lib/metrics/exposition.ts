import { createHash, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/database";
import { gaugeCounts } from "../db/gauges";
import { eventBus } from "../events/bus";
import { log } from "../log";
import { metrics } from "./registry";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * GET /metrics takes `Authorization: Bearer <METRICS_TOKEN>` or the API token,
 * compared in constant time. With neither configured nothing is served.
 */
export function metricsAuthorized(authorization: string | null, tokens: (string | undefined)[]): boolean {
  if (!authorization?.startsWith("Bearer ")) return false;
  const given = digest(authorization.slice(7).trim());
  // Every configured token is compared, so the time does not tell which one matched.
  return tokens.filter((t): t is string => !!t).reduce((ok, token) => timingSafeEqual(given, digest(token)) || ok, false);
}

/**
 * The text exposition of this instance's metrics, or null when they are off.
 * The gauges of the queue and the handoff inbox are read from the database at
 * scrape time (so they count every instance's work); a failed read leaves
 * their last values and is logged, the counters are served anyway.
 */
export async function renderMetrics(db: Database, now = new Date()): Promise<{ contentType: string; body: string } | null> {
  const m = metrics();
  if (!m) return null;
  try {
    const counts = await gaugeCounts(db, now);
    m.queueTurns.set(counts.turnsWaiting);
    m.queueEnvelopes.set(counts.envelopesWaiting);
    m.queueOldestWait.set(counts.oldestWaitSeconds);
    m.turnsRunning.set(counts.turnsRunning);
    m.handoffsWaiting.set(counts.handoffsWaiting);
  } catch (error) {
    log.warn("metrics.gauges_failed", { error });
  }
  m.liveEventClients.set(eventBus(db).subscribers);
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}
