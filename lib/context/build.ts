import type { Settings } from "../settings/schema";
import { humanDuration } from "./duration";
import type { ContextMessage, StoredMessage } from "./types";

export type ContextInput = {
  /** The message being answered. */
  current: StoredMessage;
  /** The last `recencyWindow` messages up to and including `current`. */
  recent: StoredMessage[];
  /** The message `current` replies to, when it is stored. */
  target: StoredMessage | null;
  /** Up to `replyContextWindow` messages before and after the target. */
  targetNeighbours: StoredMessage[];
  /** The target's own reply chain upward (its parent, grandparent, …). */
  chain: StoredMessage[];
  /** The message before `current` in the conversation, for the gap note. */
  previous: StoredMessage | null;
  settings: Pick<Settings, "gapThresholdMinutes">;
  /** Per message id, when the message before it in the chat was sent (lib/db/context-input.ts loads it). */
  previousSentAt?: ReadonlyMap<number, Date | null>;
};

export type BuiltContext = {
  /** Deduplicated by id, oldest first; `origin` marks the reply's context. */
  messages: ContextMessage[];
  /** A note for the system prompt when the conversation was silent a while. */
  gapNote: string | null;
};

const byTime = (a: StoredMessage, b: StoredMessage) => a.sentAt.getTime() - b.sentAt.getTime() || a.id - b.id;

/**
 * What the model sees of the conversation: always the recency window, plus —
 * for a reply — the target, its neighbours and its reply chain, deduplicated and
 * in time order. A missing target leaves recency alone.
 */
export function buildContext(input: ContextInput): BuiltContext {
  const merged = new Map<number, ContextMessage>();
  const withOrigin = (m: StoredMessage, origin: ContextMessage["origin"]): ContextMessage => ({
    ...m,
    origin,
    previousSentAt: input.previousSentAt?.get(m.id) ?? null,
  });
  for (const m of input.recent) merged.set(m.id, withOrigin(m, "recent"));
  merged.set(input.current.id, withOrigin(input.current, "recent"));
  const replyContext = input.target ? [input.target, ...input.targetNeighbours, ...input.chain] : [];
  for (const m of replyContext) if (!merged.has(m.id)) merged.set(m.id, withOrigin(m, "reply-context"));
  // Time order, except that the message being answered always comes last: a reply
  // target can carry a later timestamp than the reply (platform clocks, same second).
  const current = merged.get(input.current.id)!;
  merged.delete(input.current.id);
  return {
    messages: [...[...merged.values()].sort(byTime), current],
    gapNote: gapNote(input.current, input.previous, input.settings.gapThresholdMinutes),
  };
}

/** A note when the silence before `current` exceeds the threshold (strictly). */
export function gapNote(current: StoredMessage, previous: StoredMessage | null, thresholdMinutes: number): string | null {
  if (!previous) return null;
  const gap = current.sentAt.getTime() - previous.sentAt.getTime();
  if (gap <= thresholdMinutes * 60_000) return null;
  return `Note: the previous message in this conversation was ${humanDuration(gap)} before this one. The topic may have changed; do not assume the user is continuing the earlier exchange.`;
}
