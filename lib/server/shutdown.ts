import { log } from "../log";
import { tracing } from "../tracing/hooks";
import { processHolder, type App } from "./wiring";

/**
 * Stops the worker once its in-flight turns end (bounded by `deadlineMs`: a turn
 * cut short is taken over after its lease, see docs/RELIABILITY.md), then closes the
 * database. Registered on the process holder (lib/server/wiring.ts) so
 * scripts/start.mjs, outside Next's bundles, can call it on SIGTERM.
 */
export async function shutdownApp(ctx: Pick<App, "worker" | "db"> & Partial<Pick<App, "media">>, deadlineMs: number) {
  const started = Date.now();
  // Media downloads stop with the turns; one cut short is claimed again after its lease.
  const stopped = await Promise.race([
    Promise.all([ctx.worker.stop(), ctx.media?.stop()]).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), deadlineMs).unref()),
  ]);
  if (!stopped) log.warn("server.shutdown_turns_cut", { afterMs: deadlineMs });
  await ctx.db.close().catch((error) => log.error("server.shutdown_db_failed", { error }));
  await tracing()
    ?.flush()
    .catch((error) => log.warn("server.shutdown_traces_lost", { error }));
  log.info("server.stopped", { ms: Date.now() - started, turnsFinished: stopped });
}

export function registerShutdown(ctx: Pick<App, "worker" | "db"> & Partial<Pick<App, "media">>) {
  processHolder.shutdown = (deadlineMs) => shutdownApp(ctx, deadlineMs);
}
