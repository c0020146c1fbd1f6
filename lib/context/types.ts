import type { StoredMessage } from "../db/context-facts";

/** Where a context message came from: the recency window or the reply's context. */
export type ContextOrigin = "recent" | "reply-context";
export type ContextMessage = StoredMessage & {
  origin: ContextOrigin;
  /** When the message before this one in the chat was sent (any session), for the header's elapsed field; null if none or unknown. */
  previousSentAt: Date | null;
};
