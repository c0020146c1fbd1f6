/**
 * What lib/context/load-facts.ts has lib/db/context-input.ts load for a turn: the
 * stored messages, their files and the sizes of the queries. Declared here, with the
 * queries, so lib/db stands on nothing above it; lib/context decides what of it the
 * model sees (lib/context/assemble.ts `assembleContext`).
 */

/** One attachment of a stored message as the prompt reads it (Attachment row; docs/ARCHITECTURE.md "Media"). */
export type AttachmentFact = {
  id: number;
  messageId: number;
  position: number;
  kind: string;
  /** Sniffed once stored; the platform's declared type before. */
  mimeType: string | null;
  fileName: string | null;
  sizeBytes: number | null;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  status: string;
  error: string | null;
  /** Kind-specific platform facts: a sticker's emoji, set name and format; an audio's performer and title. */
  details: Record<string, unknown> | null;
  transcript: string | null;
  blobSha256: string | null;
};

/** The fields of a stored message that context building and formatting read. */
export type StoredMessage = {
  id: number;
  conversationId: number;
  direction: string;
  senderKind: string;
  senderName: string | null;
  text: string;
  sentAt: Date;
  replyToMessageId: number | null;
  replyToText: string | null;
  replyToSenderName: string | null;
  replyToSenderIsBot: boolean | null;
  quoteText: string | null;
  forkId: number | null;
  /** Set when the sender edited the message; `text` is the latest version. */
  editedAt: Date | null;
  /** Set when the sender took the message back (LINE unsend), or an operator deleted it from the chat. */
  deletedAt: Date | null;
  /** The operator who deleted it from the chat: the model no longer sees it at all. Absent: not loaded. */
  deletedBy?: string | null;
  /** A chat-sent message's stand-in: "anonymous_admin" | "channel" | "automatic_forward". */
  senderRole: string | null;
  /** A forward's real origin, as a name. */
  forwardedFrom: string | null;
  /** The inline bot it was sent via (username). */
  viaBot: string | null;
  /** For a reply to another chat's message: that chat's title. */
  replyToChatTitle: string | null;
  /** What the message shares that is not a file (Message.shared: location, contact, poll, dice…); absent: not loaded. */
  shared?: unknown;
  /** The album it is part of. Absent: not loaded. */
  mediaGroupId?: string | null;
  /** Its files, in order (lib/db/context-input.ts loads them with the context). Absent: none loaded. */
  attachments?: AttachmentFact[];
  /** The platform's id for the message; null on one of our sends the platform never confirmed (possibly delivered). Absent: not loaded. */
  platformMessageId?: string | null;
};

/** A main-session message an interactive fork's prompt shows as context (a pending update). */
export type PendingUpdate = Pick<StoredMessage, "senderKind" | "senderName" | "text" | "sentAt"> &
  Partial<Pick<StoredMessage, "id" | "attachments" | "shared">>;

/** What the loader is asked for: sizes of its queries, derived from the settings. */
export type ContextNeeds = {
  /**
   * The session's newest messages up to the current one: the window, and one more,
   * the message before it (the gap note measures from it, and a window of one holds
   * only the current message). The window is then cut from what was loaded
   * (`assembleMessages`) for every size, never by the load's own limit.
   */
  recency: number;
  /** Messages on each side of a reply target. */
  replyNeighbours: number;
  /** Replied-to messages followed up the chain, the target included. */
  replyChainDepth: number;
  /** A fork's turn: main-session messages since it began, the newest. */
  pendingUpdates: number;
};

/**
 * The stored facts of one turn, as loaded; nothing in them is decided yet. What
 * the model will also see later (a message's images, a voice note's transcript)
 * comes in as further facts here, and its rule goes in assembleContext.
 */
export type ContextFacts = {
  conversation: {
    channel: string;
    type: string;
    title: string | null;
    topicName?: string | null;
    lastHandoffFrom?: Date | null;
    lastHandoffUntil?: Date | null;
    lastHandoffOperator?: string | null;
  };
  /** The message answered (a burst's latest); null for a background task. */
  current: StoredMessage | null;
  /** The session's newest messages up to and including `current` (the whole main session for a task), newest first. */
  session: StoredMessage[];
  /** A fork's turn: the main session up to where the fork's oldest ancestor began, newest first. */
  forkBase: StoredMessage[];
  /** A fork's turn: what the main session said since the fork began, oldest first. */
  pendingUpdates: PendingUpdate[];
  /** The message `current` replies to, when it is stored. */
  target: StoredMessage | null;
  /** Up to `replyContextWindow` messages before and after the target. */
  targetNeighbours: StoredMessage[];
  /** The target's own reply chain upward (its parent, grandparent, …). */
  chain: StoredMessage[];
  /** The burst's earlier messages (unanswered, same session), oldest first. */
  burst: StoredMessage[];
  /** Per loaded message id, when the message before it in the chat was sent (any session). */
  previousSentAt: ReadonlyMap<number, Date | null>;
  /** A background task: its text, who started it (an address) and when it runs. */
  task?: { text: string; from: string; at: Date } | null;
  /** Per loaded message id, its attachments in order (absent: none loaded). */
  attachments?: ReadonlyMap<number, AttachmentFact[]>;
};
