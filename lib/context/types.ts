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
  /** Set when the sender took the message back (LINE unsend). */
  deletedAt: Date | null;
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

/** Where a context message came from: the recency window or the reply's context. */
export type ContextOrigin = "recent" | "reply-context";
export type ContextMessage = StoredMessage & {
  origin: ContextOrigin;
  /** When the message before this one in the chat was sent (any session), for the header's elapsed field; null if none or unknown. */
  previousSentAt: Date | null;
};

/** A main-session message an interactive fork's prompt shows as context (a pending update). */
export type PendingUpdate = Pick<StoredMessage, "senderKind" | "senderName" | "text" | "sentAt"> &
  Partial<Pick<StoredMessage, "id" | "attachments" | "shared">>;
