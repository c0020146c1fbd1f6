import { DeliveryError, type ActivityTarget, type ChannelAdapter } from "../channels/types";
import { log } from "../log";

/**
 * The answer shown as it is written (Telegram sendMessageDraft): the text so far,
 * at most one update per `intervalMs` per chat, the latest text winning. Best
 * effort like chat actions: a 429 skips updates until its `retry_after` ends, a
 * platform without the method stops the drafts, nothing is sent after `stop`, and
 * no failure reaches the turn. The real answer is still sent once, as today.
 * The first draft waits `firstDelayMs` after the first words: an answer that
 * arrives at once is only the message.
 */
export type AnswerDraft = {
  /** The answer's text so far (a growing prefix). */
  update(text: string): void;
  /** No more updates; waits briefly for one already on its way (so it cannot land after the answer). */
  stop(): Promise<void>;
  /** Draft updates the platform accepted. */
  readonly shown: number;
};

export type AnswerDraftOptions = { intervalMs?: number; firstDelayMs?: number; settleMs?: number; now?: () => number };

/** With at least this many turns running on the instance and its event loop this busy, answers go out without drafts. */
export const DRAFTS_SHED_AT = { turnsRunning: 32, loopBusy: 0.7 };

/**
 * Drafts are the first thing a busy instance gives up: streaming a call and parsing
 * each of its deltas cost about a sixth of a turn's CPU (docs/BENCHMARKS.md), which a
 * burst of chats needs for answering. A few turns at once never shed them.
 */
export function shedDrafts(turnsRunning: number, loopBusy: number): boolean {
  return turnsRunning >= DRAFTS_SHED_AT.turnsRunning && loopBusy >= DRAFTS_SHED_AT.loopBusy;
}

/** Whether the channel can show drafts in this chat (Telegram private chats, while the Bot API has the method). */
export function draftsPossible(
  channel: ChannelAdapter | undefined,
  target: ActivityTarget,
): channel is ChannelAdapter & Required<Pick<ChannelAdapter, "sendDraft">> {
  return Boolean(channel?.sendDraft && channel.draftsFor?.(target));
}

/** Drafts for this chat, or null when the channel cannot show them there. */
export function startAnswerDraft(
  channel: ChannelAdapter | undefined,
  target: ActivityTarget,
  draftId: number,
  options: AnswerDraftOptions = {},
): AnswerDraft | null {
  if (!draftsPossible(channel, target)) return null;
  const sendDraft = channel.sendDraft.bind(channel);
  const intervalMs = options.intervalMs ?? 500;
  // An answer that is all there within this time of its first words goes out as the message
  // alone: a draft shown a moment before it would be one more Bot API call and a flicker.
  const firstDelayMs = options.firstDelayMs ?? 300;
  const settleMs = options.settleMs ?? 250;
  const now = options.now ?? Date.now;
  let latest = "";
  let sentText = "";
  let shown = 0;
  let stopped = false;
  let nextAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;

  const flush = () => {
    timer = null;
    if (stopped || inFlight || latest === sentText) return;
    const wait = nextAt - now();
    if (wait > 0) return schedule(wait);
    const text = latest;
    nextAt = now() + intervalMs;
    inFlight = sendDraft(target, draftId, text)
      .then(() => {
        sentText = text;
        shown += 1;
      })
      .catch((error: unknown) => {
        if (error instanceof DeliveryError && error.unsupported) stopped = true;
        // Skip, never wait: the final message must not queue behind a draft.
        if (error instanceof DeliveryError && error.retryAfterMs) nextAt = now() + error.retryAfterMs;
        sentText = text;
        log.debug("answer_draft.failed", { channel: channel.name, error: (error as Error).message });
      })
      .finally(() => {
        inFlight = null;
        if (!stopped && latest !== sentText) schedule(Math.max(0, nextAt - now()));
      });
  };
  const schedule = (ms: number) => {
    if (timer || stopped) return;
    timer = setTimeout(flush, ms);
    timer.unref?.();
  };

  return {
    get shown() {
      return shown;
    },
    update(text: string) {
      if (stopped || !text || text === latest) return;
      if (!latest) nextAt = now() + firstDelayMs;
      latest = text;
      if (!inFlight) schedule(Math.max(0, nextAt - now()));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const pending = inFlight;
      if (!pending) return;
      let settle: NodeJS.Timeout | undefined;
      await Promise.race([pending, new Promise<void>((resolve) => (settle = setTimeout(resolve, settleMs)))]);
      clearTimeout(settle);
    },
  };
}
