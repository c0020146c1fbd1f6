import { HTTPFetchError } from "@line/bot-sdk";
import { Api, GrammyError, HttpError } from "grammy";
import { TELEGRAM_ALLOWED_UPDATES } from "./platform-check";
import { LineTimeoutError, lineMessagingApi } from "../channels/line/messaging-api";

/** The platforms' API roots (tests and self-hosted Bot API servers); unset = the platform's own. */
export type PlatformRoots = { telegramApiRoot?: string; lineApiRoot?: string };

/** A bot's credentials, opened: { token } or { channelSecret, channelAccessToken }. */
export type OpenCredentials = { token?: string; channelSecret?: string; channelAccessToken?: string };

/** A Bot API client for one bot's token. */
export function telegramApi(roots: PlatformRoots, token: string) {
  return new Api(token, { ...(roots.telegramApiRoot ? { apiRoot: roots.telegramApiRoot } : {}), timeoutSeconds: 15 });
}

/** What a platform answered when it refused, in its own words: `Telegram 401: Unauthorized`. */
/** No answer from the platform at all (a network failure, a timeout): a 502, not a refusal. */
export function platformUnreachable(error: unknown): boolean {
  return (
    error instanceof HttpError ||
    error instanceof LineTimeoutError ||
    (!(error instanceof GrammyError) && !(error instanceof HTTPFetchError))
  );
}

export function platformSaid(error: unknown): string {
  return error instanceof GrammyError ? `Telegram ${error.error_code}: ${error.description}` : `failed: ${(error as Error).message}`;
}

/**
 * Tells the platform to deliver to `url`: Telegram setWebhook with the bot's
 * secret_token and the update kinds the pipeline handles; LINE's webhook endpoint.
 * Returns what the platform said; throws what its client threw.
 *
 * @example await setPlatformWebhook(deps, { platform: "telegram", credentials, secret, url })
 */
export async function setPlatformWebhook(
  roots: PlatformRoots,
  bot: { platform: string; credentials: OpenCredentials; secret: string; url: string },
): Promise<string> {
  if (bot.platform === "telegram") {
    await telegramApi(roots, bot.credentials.token!).setWebhook(bot.url, {
      secret_token: bot.secret,
      allowed_updates: TELEGRAM_ALLOWED_UPDATES as never,
    });
    return "Webhook was set";
  }
  await lineMessagingApi(bot.credentials.channelAccessToken!, { apiRoot: roots.lineApiRoot, timeoutMs: 30_000 }).setWebhookEndpoint({
    endpoint: bot.url,
  });
  return "Webhook endpoint was set";
}

/**
 * Telegram deleteWebhook, keeping the pending updates (no drop_pending_updates):
 * Telegram holds them, up to 24 hours, and delivers them once a webhook is set
 * again. Throws what grammY threw.
 */
export async function deleteTelegramWebhook(roots: PlatformRoots, token: string): Promise<void> {
  await telegramApi(roots, token).deleteWebhook();
}
