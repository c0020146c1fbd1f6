import { queueStats } from "../db/queue-stats";
import { getSettings } from "../settings/store";
import { throughput } from "../settings/throughput";
import type { App } from "./wiring";

/** The queue as operators see it: the database's view (all instances) plus this instance's limits and model gate. */
export async function describeQueue(ctx: App, now: Date) {
  const [stats, settings] = await Promise.all([queueStats(ctx.db, now), getSettings(ctx.db)]);
  return {
    ...stats,
    limits: throughput(settings, ctx.env),
    instance: {
      ...ctx.worker.load(),
      model: ctx.gate ? { ...ctx.gate.load(), pausedUntil: ctx.gate.pausedUntil()?.toISOString() ?? null } : null,
    },
  };
}
