import { env } from "../env";
import { log } from "../log";
import { appContext } from "./context";

/** Validates the environment and starts the in-process worker. */
export async function startBackground() {
  env();
  const ctx = await appContext();
  // The bot's identity (getMe) once at start, cached; a failure is logged and retried on first use.
  const bot = await ctx.telegram.identity().catch((error) => {
    log.error("telegram.getme_failed", { error });
    return null;
  });
  log.info("server.ready", {
    database: ctx.env.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql",
    telegram: ctx.telegram.mode,
    bot: bot?.username ?? null,
    model: ctx.model ? `${ctx.model.provider}:${ctx.model.modelId}` : null,
  });
}
