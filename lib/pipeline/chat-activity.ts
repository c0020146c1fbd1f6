import { DeliveryError, type ActivityTarget, type ChannelAdapter } from "../channels/types";
import { log } from "../log";

/**
 * What the user sees while a turn runs: "typing…" on Telegram, LINE's loading
 * animation. Best effort by design: a failure is logged at debug level and never
 * fails the turn; a 429 is obeyed by skipping renewals until its `retry_after`
 * ends, never by delaying the answer; nothing is sent once `stop` was called.
 */
export type ChatActivity = {
  /**
   * Stops the renewals. Waits (briefly, at most `settleMs`) for a request already
   * on its way, so no "typing…" lands after the answer that follows.
   */
  stop(): Promise<void>;
  /** Indicators sent so far (for the turn record and tests). */
  readonly sent: number;
};

export type ChatActivityOptions = {
  /** Renewal interval; defaults to the adapter's own (Telegram's action lasts 5 s). */
  renewMs?: number;
  /** How long `stop` waits for an indicator already in flight. */
  settleMs?: number;
  now?: () => number;
};

const NONE: ChatActivity = { stop: async () => {}, sent: 0 };

/** Starts showing activity in a chat, or does nothing when the channel has no indicator. */
export function startChatActivity(
  channel: ChannelAdapter | undefined,
  target: ActivityTarget,
  options: ChatActivityOptions = {},
): ChatActivity {
  const show = channel?.showActivity?.bind(channel);
  if (!show) return NONE;
  const renewMs = options.renewMs ?? channel?.activityRenewMs ?? 4_500;
  const settleMs = options.settleMs ?? 250;
  const now = options.now ?? Date.now;
  let stopped = false;
  let sent = 0;
  let quietUntil = 0;
  let inFlight: Promise<void> | null = null;

  const tick = () => {
    if (stopped || inFlight || now() < quietUntil) return;
    inFlight = show(target)
      .then(() => {
        sent += 1;
      })
      .catch((error: unknown) => {
        const retryAfterMs = error instanceof DeliveryError ? error.retryAfterMs : undefined;
        if (retryAfterMs) quietUntil = now() + retryAfterMs;
        log.debug("chat_activity.failed", { channel: channel?.name, error: (error as Error).message, retryAfterMs });
      })
      .finally(() => {
        inFlight = null;
      });
  };
  tick();
  const timer = setInterval(tick, renewMs);
  timer.unref?.();
  return {
    get sent() {
      return sent;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      const pending = inFlight;
      if (!pending) return;
      let settle: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise<void>((resolve) => (settle = setTimeout(resolve, settleMs)))]);
      clearTimeout(settle);
    },
  };
}
