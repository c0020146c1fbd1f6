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
  /** Set when the user edited the message after sending it. */
  editedAt?: Date | null;
};

/** Where a context message came from: the recency window or the reply's context. */
export type ContextOrigin = "recent" | "reply-context";
export type ContextMessage = StoredMessage & {
  origin: ContextOrigin;
  /** When the message before this one in the chat was sent (any session), for the header's elapsed field; null if none or unknown. */
  previousSentAt: Date | null;
};
