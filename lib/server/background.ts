import { env } from "../env";
import { log } from "../log";
import { appContext } from "./context";

/** Validates the environment and starts the in-process worker. */
export async function startBackground() {
  env();
  const ctx = await appContext();
  // The bot's identity (getMe) in the background, never awaited: a Bot API outage
  // must not hold the console, health or the other webhooks (bounded retries; see the adapter).
  ctx.telegram.identity().catch(() => {});
  const bot = ctx.telegram.identityState();
  log.info("server.ready", {
    database: ctx.env.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql",
    telegram: ctx.telegram.mode,
    bot: bot.state === "ready" ? bot.identity.username : null,
    model: ctx.model ? `${ctx.model.provider}:${ctx.model.modelId}` : null,
  });
}
