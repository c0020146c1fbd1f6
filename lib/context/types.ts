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
};

/** Where a context message came from: the recency window or the reply's context. */
export type ContextOrigin = "recent" | "reply-context";
export type ContextMessage = StoredMessage & { origin: ContextOrigin };
