import { checkDatabase, checkMigrations } from "../db/health";
import type { App } from "./wiring";

type HealthCtx = Pick<App, "db" | "env" | "telegram" | "channels">;

function channelStates(ctx: HealthCtx) {
  const identity = ctx.telegram.identityState();
  const telegram =
    identity.state === "ready"
      ? { ok: true, mode: ctx.telegram.mode }
      : { ok: false, mode: ctx.telegram.mode, state: identity.state, attempts: identity.attempts };
  // LINE needs no identity lookup: configured is ready.
  return { telegram, ...(ctx.channels.line ? { line: { ok: true, mode: ctx.channels.line.mode } } : {}) };
}

/**
 * What /api/health tells anyone who asks: "ok", or "degraded" with the part that is
 * down. The database decides the status code (the console needs it); a channel that
 * cannot reach its platform is reported but the console keeps serving (200).
 */
export async function describeHealth(ctx: HealthCtx) {
  const database = await checkDatabase(ctx.db, ctx.env.DATABASE_URL);
  const channels = channelStates(ctx);
  const ok = database.ok && Object.values(channels).every((c) => c.ok);
  return { status: ok ? "ok" : "degraded", database, channels };
}

/**
 * Readiness for an orchestrator (GET /api/health/ready): send traffic here only
 * when the database answers, every migration is applied and each channel knows
 * its bot's identity (until then the Telegram webhook answers 503 anyway).
 */
export async function describeReadiness(ctx: HealthCtx) {
  const [database, migrations] = await Promise.all([
    checkDatabase(ctx.db, ctx.env.DATABASE_URL),
    checkMigrations(ctx.db, ctx.env.DATABASE_URL),
  ]);
  const channels = channelStates(ctx);
  const ready = database.ok && migrations.ok && Object.values(channels).every((c) => c.ok);
  return { status: ready ? "ready" : "not_ready", database, migrations, channels };
}
