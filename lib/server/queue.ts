import { type QueueOf, queueStats } from "../db/queue-stats";
import { settingsFor } from "../settings/reader";
import { throughput } from "../settings/throughput";
import type { LimitChange } from "../agent/adaptive-limit";
import type { ProviderGate } from "../agent/call-limits";
import type { App } from "./wiring";

/** The queue as operators see it: the database's view (all instances) plus this instance's limits and model gate. */
export async function describeQueue(ctx: App, now: Date, of?: QueueOf) {
  const [stats, settings] = await Promise.all([queueStats(ctx.db, now, 60, of), settingsFor(ctx.db)]);
  return {
    ...stats,
    limits: throughput(settings, ctx.env),
    instance: {
      ...ctx.worker.load(),
      model: ctx.gate ? modelLimits(ctx.gate) : null,
    },
  };
}

const change = (c: LimitChange) => ({ ...c, at: c.at.toISOString() });

function modelLimits(gate: ProviderGate) {
  const { limit, ceiling, phase, lastChange, lastBackoff, latencyMs } = gate.limitState();
  return {
    provider: gate.provider,
    model: gate.model,
    ...gate.load(),
    limit,
    ceiling,
    phase,
    lastChange: change(lastChange),
    lastBackoff: lastBackoff && change(lastBackoff),
    latencyMs,
    pausedUntil: gate.pausedUntil()?.toISOString() ?? null,
    refusingSince: gate.refusingSince()?.toISOString() ?? null,
  };
}
