import type { QueuePlan, QueuedEnvelope } from "../db/claim";
import { workKindOf, workKinds } from "../envelope/work-kinds";

export type PlanOptions = {
  now: Date;
  /** Quiet time after the last message of a burst before its turn starts. */
  debounceMs: number;
  /** While a rate limit pauses the model, turns that need it wait until then. */
  modelPausedUntil: Date | null;
};

/** The most messages one turn answers; a longer backlog continues in the next turn. */
export const MAX_BURST = 50;
/** A burst that keeps growing is answered at the latest this many debounce periods after its first message. */
export const DEBOUNCE_CAP_FACTOR = 4;
/**
 * An album's parts (Telegram media_group_id, LINE imageSet) arrive as separate updates
 * within moments of each other: a turn holding one waits this long after the last part
 * arrived, whatever the debounce, so the album is answered once, with all its pictures.
 */
export const ALBUM_QUIET_MS = 1_500;
/** …but not longer than this after its first message, however the album keeps growing. */
export const ALBUM_CAP_MS = 10_000;

/**
 * A conversation's next turn, from its queue (waiting envelopes, oldest first;
 * scheduled mail that is not due yet is left out by the caller). The oldest
 * envelope leads, so each conversation stays strictly in order:
 * - a user's message takes every following message of the same session (main, or
 *   the same fork) into one turn, up to MAX_BURST: the model answers them once;
 * - that turn starts once the burst has been quiet for `debounceMs` (or the first
 *   message waited DEBOUNCE_CAP_FACTOR × that), and not before a retry's backoff ends;
 *   a burst holding part of an album waits at least ALBUM_QUIET_MS after its last part;
 * - channel mail and background tasks run one envelope at a time.
 * Each rule is the head's kind's entry in lib/envelope/work-kinds.ts.
 * Pure: the claim (lib/db/claim.ts) calls it inside its transaction.
 */
export function planTurn(queue: QueuedEnvelope[], options: PlanOptions): QueuePlan {
  const head = queue[0];
  if (!head) return null;
  const kind = workKindOf(head);
  const spec = workKinds[kind];
  let take = [head];
  if (spec.batch === "burst") {
    take = [];
    for (const e of queue) {
      if (workKindOf(e) !== kind || e.forkId !== head.forkId || take.length === MAX_BURST) break;
      take.push(e);
    }
  }
  const now = options.now.getTime();
  let due = Math.max(...take.map((e) => e.deliverAt?.getTime() ?? 0));
  if (spec.debounced) {
    const first = Math.min(...take.map((e) => e.createdAt.getTime()));
    const last = Math.max(...take.map((e) => e.createdAt.getTime()));
    const quiet = Math.min(last + options.debounceMs, first + options.debounceMs * DEBOUNCE_CAP_FACTOR);
    due = Math.max(due, quiet);
    if (take.some((e) => e.mediaGroup)) {
      // The album waits for its last part, as a burst does, however short the debounce.
      due = Math.max(due, Math.min(last + ALBUM_QUIET_MS, first + ALBUM_CAP_MS));
    }
  }
  if (spec.needsModel && options.modelPausedUntil) due = Math.max(due, options.modelPausedUntil.getTime());
  return due > now ? { waitUntil: new Date(due) } : { take };
}
