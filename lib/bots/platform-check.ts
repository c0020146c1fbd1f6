import { HTTPFetchError } from "@line/bot-sdk";
import { Api, GrammyError, HttpError } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { lineMessagingApi } from "../channels/line/messaging-api";

/** What the platform says about credentials: who the bot is, or its refusal in its own words. */
export type PlatformCheck =
  | { ok: true; platformBotId: string; name: string; username: string | null; pictureUrl: string | null; botInfo?: UserFromGetMe }
  /** `unreachable`: no answer at all (a network failure, a timeout), not a refusal of the credentials. */
  | { ok: false; answer: string; unreachable?: boolean };

const CHECK_TIMEOUT_SECONDS = 10;

/** Telegram getMe with this token: a revoked or mistyped token is Telegram's 401 "Unauthorized". */
export async function checkTelegramToken(token: string, apiRoot?: string): Promise<PlatformCheck> {
  const api = new Api(token, { ...(apiRoot ? { apiRoot } : {}), timeoutSeconds: CHECK_TIMEOUT_SECONDS });
  try {
    const me = await api.getMe();
    if (!me.is_bot) return { ok: false, answer: "getMe answered with an account that is not a bot" };
    return { ok: true, platformBotId: String(me.id), name: me.first_name, username: me.username, pictureUrl: null, botInfo: me };
  } catch (error) {
    if (error instanceof GrammyError) return { ok: false, answer: `Telegram ${error.error_code}: ${error.description}` };
    if (error instanceof HttpError) return { ok: false, answer: `Telegram unreachable: ${error.message}`, unreachable: true };
    return { ok: false, answer: `getMe failed: ${(error as Error).message}` };
  }
}

/** LINE's bot info with this access token (the channel secret cannot be checked until LINE signs a webhook). */
export async function checkLineChannel(accessToken: string, apiRoot?: string): Promise<PlatformCheck> {
  try {
    const info = await lineMessagingApi(accessToken, { apiRoot, timeoutMs: 10_000 }).getBotInfo();
    // Not LINE's bot info (an empty or foreign answer): no bot to add, and no id to tell it is added twice.
    if (typeof info?.userId !== "string" || !info.userId)
      return { ok: false, answer: "LINE bot info failed: the answer had no bot user id", unreachable: true };
    return {
      ok: true,
      platformBotId: info.userId,
      name: info.displayName,
      username: info.basicId ?? null,
      pictureUrl: info.pictureUrl ?? null,
    };
  } catch (error) {
    if (error instanceof HTTPFetchError)
      return { ok: false, answer: `LINE ${error.status}: ${error.body?.slice(0, 300) ?? error.statusText}` };
    return { ok: false, answer: `LINE bot info failed: ${(error as Error).message}`, unreachable: true };
  }
}

/** The update kinds the pipeline handles (lib/channels/telegram/parse.ts): asked for at setWebhook. */
export const TELEGRAM_ALLOWED_UPDATES = ["message", "edited_message", "channel_post", "edited_channel_post", "my_chat_member"];
