import { checkDatabase } from "../db/health";
import type { App } from "./wiring";

/**
 * What /api/health tells anyone who asks: "ok", or "degraded" with the part that is
 * down. The database decides the status code (the console needs it); a channel that
 * cannot reach its platform is reported but the console keeps serving (200).
 */
export async function describeHealth(ctx: Pick<App, "db" | "env" | "telegram">) {
  const database = await checkDatabase(ctx.db, ctx.env.DATABASE_URL);
  const identity = ctx.telegram.identityState();
  const telegram =
    identity.state === "ready"
      ? { ok: true, mode: ctx.telegram.mode }
      : { ok: false, mode: ctx.telegram.mode, state: identity.state, attempts: identity.attempts };
  return { status: database.ok && telegram.ok ? "ok" : "degraded", database, channels: { telegram } };
}
