import type { App } from "./wiring";

/** The configuration an operator may see: never keys, tokens or secrets. */
export async function describeStatus(ctx: App) {
  const identity = ctx.telegram.identityState();
  const username = identity.state === "ready" ? identity.identity.username : null;
  let error = identity.state === "ready" ? undefined : `getMe ${identity.state}${identity.error ? `: ${identity.error}` : ""}`;
  let webhook: { url: string; pendingUpdates: number; lastError?: string } | undefined;
  if (ctx.telegram.mode === "live" && !error) {
    try {
      const info = await ctx.telegram.bot.api.getWebhookInfo();
      webhook = {
        url: info.url ?? "",
        pendingUpdates: info.pending_update_count,
        ...(info.last_error_message ? { lastError: info.last_error_message } : {}),
      };
    } catch (e) {
      error = `getWebhookInfo failed: ${(e as Error).message}`;
    }
  }
  // Each bot's username by its channel adapter, so an answer is labelled with the bot that sent it.
  const bots = await ctx.db.prisma.bot.findMany({ select: { adapter: true, username: true } });
  return {
    model: ctx.model ? { provider: ctx.model.provider, modelId: ctx.model.modelId } : null,
    telegram: {
      mode: ctx.telegram.mode,
      username,
      drafts: ctx.telegram.draftsState(),
      ...(webhook ? { webhook } : {}),
      ...(error ? { error } : {}),
    },
    line: { enabled: Boolean(ctx.channels.line) },
    bots: Object.fromEntries(bots.map((bot) => [bot.adapter, bot.username])),
    database: ctx.env.DATABASE_URL.startsWith("file:") ? ("sqlite" as const) : ("postgresql" as const),
  };
}
