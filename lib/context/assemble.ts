import { parseAddress } from "../envelope/address";
import type { Settings } from "../settings/schema";
import { humanDuration } from "./duration";
import { handoffNoteFor, type HandoffNote } from "./handoff-note";
import { imagesForModel } from "./media";
import type { AttachmentFact, ContextFacts, ContextNeeds, PendingUpdate, StoredMessage } from "../db/context-facts";
import type { ContextMessage } from "./types";

/**
 * What the model sees, decided here and nowhere else: from the facts the loader
 * read (lib/context/load-facts.ts `loadContextFacts`) and the settings, which
 * messages go in, in what order, and which notes come with them. Pure, so a turn
 * can be rebuilt with other settings (replay) and each rule is tested on its own.
 */

/** The settings what the model sees depends on: every limit comes from here. */
export type ContextSettings = Pick<
  Settings,
  "recencyWindow" | "replyContextWindow" | "replyChainDepth" | "gapThresholdMinutes" | "forkPendingUpdates"
> &
  Partial<Pick<Settings, "maxImagesPerTurn" | "modelSeesImages">>;

export function contextNeeds(settings: ContextSettings): ContextNeeds {
  return {
    recency: settings.recencyWindow + 1,
    replyNeighbours: settings.replyContextWindow,
    replyChainDepth: settings.replyChainDepth,
    pendingUpdates: settings.forkPendingUpdates,
  };
}

/** The ordered, deduplicated context a prompt is rendered from (lib/context/prompt.ts). */
export type AssembledContext = BuiltContext & {
  /** The message answered; null for a background task. */
  currentId: number | null;
  conversation: ContextFacts["conversation"];
  pendingUpdates: PendingUpdate[];
  handoffNote: HandoffNote | null;
  /** Our own fixed words for the system prompt (a burst, a background task's role). */
  notes: string[];
  task: { text: string; at: Date } | null;
  /** Per user message id, the pictures the model is given as images with it (lib/context/media.ts `imagesForModel`). */
  images: ReadonlyMap<number, AttachmentFact[]>;
};

const newestFirst = (a: StoredMessage, b: StoredMessage) => b.sentAt.getTime() - a.sentAt.getTime() || b.id - a.id;

/**
 * One turn's context: the main turn (the recency window, the reply's context, the
 * burst), an interactive fork's turn (its own messages after the main session as
 * it was when it began, and the main session's pending updates) and a background
 * task (the newest main-session messages, the task last) all come through here.
 */
export function assembleContext(loaded: ContextFacts, settings: ContextSettings): AssembledContext {
  const facts = withoutDeletedByOperators(loaded);
  const assembled = assembleMessages(facts, settings);
  // Each message carries its files; the newest pictures go to the model as images.
  const messages = assembled.messages.map((m) => {
    const attachments = facts.attachments?.get(m.id);
    return attachments?.length ? { ...m, attachments } : m;
  });
  const pendingUpdates = assembled.pendingUpdates.map((u) => {
    const attachments = u.id === undefined ? undefined : facts.attachments?.get(u.id);
    return attachments?.length ? { ...u, attachments } : u;
  });
  return { ...assembled, messages, pendingUpdates, images: imagesForModel(messages, settings) };
}

/**
 * A message an operator deleted from the chat is gone for the model too: not in the
 * recency window, the reply's target, neighbourhood or chain; a user's reply to it keeps
 * its annotation without the text (lib/db/message-edits.ts clears the replies' copies).
 * A sender's own unsend stays, marked.
 */
function withoutDeletedByOperators(facts: ContextFacts): ContextFacts {
  const loaded = [
    facts.current,
    facts.target,
    ...facts.session,
    ...facts.forkBase,
    ...facts.targetNeighbours,
    ...facts.chain,
    ...facts.burst,
  ];
  const gone = new Set(loaded.filter((m) => m?.deletedBy).map((m) => m!.id));
  if (gone.size === 0) return facts;
  // A reply to one keeps no copy of its text (the platform's, or the user's selected quote).
  const unquoted = <M extends StoredMessage | null>(m: M): M =>
    m && m.replyToMessageId !== null && gone.has(m.replyToMessageId) ? { ...m, replyToText: null, quoteText: null } : m;
  const kept = (messages: StoredMessage[]) => messages.filter((m) => !m.deletedBy).map(unquoted);
  return {
    ...facts,
    current: unquoted(facts.current),
    // A reply to a deleted message has no target: neither it nor its surroundings are shown as the reply's context.
    target: facts.target?.deletedBy ? null : unquoted(facts.target),
    session: kept(facts.session),
    forkBase: kept(facts.forkBase),
    targetNeighbours: kept(facts.targetNeighbours),
    chain: kept(facts.chain),
    burst: kept(facts.burst),
  };
}

function assembleMessages(facts: ContextFacts, settings: ContextSettings): Omit<AssembledContext, "images"> {
  const { current, conversation } = facts;
  const needs = contextNeeds(settings);
  const sessionDesc = [...facts.session, ...facts.forkBase].sort(newestFirst).slice(0, needs.recency);
  const recent = sessionDesc.slice(0, settings.recencyWindow);
  const task = facts.task ? { text: facts.task.text, at: facts.task.at } : null;
  if (!current) {
    const messages = [...recent].reverse().map((m) => withOrigin(m, "recent", facts.previousSentAt));
    return {
      messages,
      gapNote: null,
      currentId: null,
      conversation,
      pendingUpdates: [],
      handoffNote: null,
      notes: taskNote(facts.task),
      task,
    };
  }
  const { burst } = facts;
  // Every message of the burst is in the prompt, even beyond the recency window, and
  // the gap note measures the silence before the burst began.
  const first = burst[0] ?? current;
  const previous = burst.length
    ? (recent.find((m) => m.id !== first.id && !burst.some((b) => b.id === m.id) && m.sentAt <= first.sentAt) ?? null)
    : (sessionDesc.find((m) => m.id !== current.id) ?? null);
  const context = buildContext({ ...facts, current, recent: [...recent, ...burst], previous, settings });
  return {
    ...context,
    currentId: current.id,
    conversation,
    pendingUpdates: current.forkId === null || needs.pendingUpdates === 0 ? [] : facts.pendingUpdates.slice(-needs.pendingUpdates),
    handoffNote: handoffNoteFor(conversation, context.messages),
    notes: [...burstNote(burst.length + 1), ...taskNote(facts.task)],
    task,
  };
}

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

function withOrigin(m: StoredMessage, origin: ContextMessage["origin"], previousSentAt?: ReadonlyMap<number, Date | null>): ContextMessage {
  return { ...m, origin, previousSentAt: previousSentAt?.get(m.id) ?? null };
}

/**
 * The reply's merge: always the recency window, plus — for a reply — the target,
 * its neighbours and its reply chain, deduplicated and in time order. A missing
 * target leaves recency alone.
 */
export function buildContext(input: ContextInput): BuiltContext {
  const merged = new Map<number, ContextMessage>();
  for (const m of input.recent) merged.set(m.id, withOrigin(m, "recent", input.previousSentAt));
  merged.set(input.current.id, withOrigin(input.current, "recent", input.previousSentAt));
  const replyContext = input.target ? [input.target, ...input.targetNeighbours, ...input.chain] : [];
  for (const m of replyContext) if (!merged.has(m.id)) merged.set(m.id, withOrigin(m, "reply-context", input.previousSentAt));
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

/** Several messages arrived together: the model answers them once. */
export function burstNote(count: number): string[] {
  if (count < 2) return [];
  return [`The user sent the last ${count} messages in a row before you answered. Answer them together, in one reply.`];
}

/** A background task's role, naming who started it (an address of our own records, never user text). */
export function taskNote(task: ContextFacts["task"]): string[] {
  if (!task) return [];
  const starter = parseAddress(task.from);
  return [
    `You are running a background task started by ${starter.kind === "channel" ? "a channel" : `${starter.kind} ${starter.name}`}. Anything you send with reply is posted to the chat as a new message; people may reply to it later to continue this thread with you.`,
  ];
}
