import type { Bot } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { log } from "../../log";
import { DeliveryError } from "../types";
import { toDeliveryError } from "./delivery-error";
import type { BotIdentity } from "./parse";

/** Whether the bot's identity (getMe) is known: webhooks need it to tell mentions and replies to the bot. */
export type IdentityState =
  | { state: "ready"; identity: BotIdentity }
  | { state: "connecting"; attempts: number; error?: string }
  | { state: "failed"; attempts: number; error: string };

export type IdentityOptions = {
  /** What getMe answered before: the identity is known without asking again. */
  botInfo?: UserFromGetMe;
  /** Bot API request timeout in seconds (default 30). */
  timeoutSeconds?: number;
  /** getMe attempts before giving up until the next demand (default 5), and the pause before attempt n (ms). */
  identityAttempts?: number;
  identityBackoffMs?: (attempt: number) => number;
};

/**
 * The bot's id and username: getMe in the background with bounded retries (never
 * grammY's `bot.init()`, which retries forever). Rejects once the retries are spent;
 * the next call starts again. Sets `bot.botInfo` when known.
 */
export function botIdentity(bot: Bot, options: IdentityOptions) {
  const attempts = options.identityAttempts ?? 5;
  const backoff = options.identityBackoffMs ?? ((n: number) => Math.min(1000 * 2 ** (n - 1), 15_000));
  // getMe is bounded on its own: the webhook waits for nobody, but a stuck fetch would block the next one.
  const getMeTimeoutMs = Math.min((options.timeoutSeconds ?? 30) * 1000, 10_000);
  let state: IdentityState = options.botInfo
    ? { state: "ready", identity: { id: options.botInfo.id, username: options.botInfo.username } }
    : { state: "connecting", attempts: 0 };
  if (options.botInfo) bot.botInfo = options.botInfo;
  let pending: Promise<BotIdentity> | undefined;
  const fetchIdentity = async (): Promise<BotIdentity> => {
    for (let n = 1; ; n++) {
      try {
        const me = await bot.api.getMe(AbortSignal.timeout(getMeTimeoutMs) as Parameters<typeof bot.api.getMe>[0]);
        bot.botInfo = me;
        state = { state: "ready", identity: { id: me.id, username: me.username } };
        log.info("telegram.identity_ready", { username: me.username, attempts: n });
        return state.identity;
      } catch (error) {
        const reason = toDeliveryError(error).message;
        if (n >= attempts) {
          state = { state: "failed", attempts: n, error: reason };
          log.error("telegram.getme_failed", { attempts: n, error: reason });
          throw new DeliveryError(`getMe failed after ${n} attempts: ${reason}`, { outcome: "not_sent", retryable: true });
        }
        state = { state: "connecting", attempts: n, error: reason };
        log.warn("telegram.getme_retry", { attempt: n, error: reason });
        await new Promise((resolve) => setTimeout(resolve, backoff(n)).unref?.());
      }
    }
  };
  return {
    identity(): Promise<BotIdentity> {
      if (state.state === "ready") return Promise.resolve(state.identity);
      pending ??= fetchIdentity().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    identityState: (): IdentityState => state,
  };
}
