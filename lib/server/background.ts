import { env } from "../env";
import { log } from "../log";
import { countOperators } from "../db/operators";
import { getApp, processHolder } from "./wiring";
import { registerShutdown } from "./shutdown";

/**
 * Like Grafana and Jupyter: the first operator can be created only with a code the
 * server prints to its own log, so whoever reaches a fresh server first cannot take it.
 */
function printSetupCode(code: string) {
  const line = "─".repeat(64);
  process.stdout.write(
    `\n${line}\n  First-run setup: open /setup in the console and enter this code:\n\n      ${code}\n\n  (SETUP_CODE sets it; ADMIN_PASSWORD skips setup.)\n${line}\n\n`,
  );
  log.warn("setup.code_printed", { hint: "the setup code is in the framed block above on stdout" });
}

/** Validates the environment and starts the in-process worker. */
export async function startBackground() {
  env();
  const ctx = await getApp();
  registerShutdown(ctx);
  // The bot's identity (getMe) in the background, never awaited: a Bot API outage
  // must not hold the console, health or the other webhooks (bounded retries; see the adapter).
  ctx.telegram.identity().catch(() => {});
  const bot = ctx.telegram.identityState();
  if ((await countOperators(ctx.db)) === 0) {
    printSetupCode(ctx.setupCode);
    processHolder.setupCode = ctx.setupCode;
  }
  log.info("server.ready", {
    database: ctx.env.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql",
    telegram: ctx.telegram.mode,
    bot: bot.state === "ready" ? bot.identity.username : null,
    model: ctx.model ? `${ctx.model.provider}:${ctx.model.modelId}` : null,
  });
}
