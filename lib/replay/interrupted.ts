import type { Database } from "../db/database";
import { failInterruptedReplays } from "../db/replays";
import { log } from "../log";
import { giveBackUnrun } from "./quota";

/**
 * How long a replay, or a run with nothing started or finished, may look idle
 * before it counts as interrupted: a replay makes at most three model calls, each
 * within the timeout, and a minute more (five minutes with the default 60 s).
 */
export const interruptedAfterMs = (modelTimeoutMs: number) => modelTimeoutMs * 4 + 60_000;

/**
 * Replays and dataset runs run in the process that started them, not from a queue:
 * one a stopped process left `running` would stay so forever, and nothing would
 * ever finish it. Past `interruptedAfterMs` they end `failed` with the reason (a
 * run: how far it got, "start the run again"), and an agent gets back the replays
 * of a run's turns that never started (they made no model call).
 */
export async function endInterruptedReplays(db: Database, modelTimeoutMs: number, now = new Date()) {
  const ended = await failInterruptedReplays(db, interruptedAfterMs(modelTimeoutMs), now);
  for (const run of ended.runs) {
    await giveBackUnrun(db, run);
    log.warn("replay.run_interrupted", { runId: run.id, unrun: run.unrun, givenBack: run.quotaDay !== null ? run.unrun : 0 });
  }
  return ended;
}
