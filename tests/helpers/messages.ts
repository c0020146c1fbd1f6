import type { StoredMessage } from "@/lib/db/context-facts";
import type { ContextMessage } from "@/lib/context/types";

const base = Date.parse("2026-11-20T10:00:00Z");

/** A stored message for pure tests: id n, sent n minutes after a fixed base. */
export function msg(id: number, patch: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id,
    conversationId: 1,
    direction: "inbound",
    senderKind: "user",
    senderName: "Alice",
    text: `message ${id}`,
    sentAt: new Date(base + id * 60_000),
    replyToMessageId: null,
    replyToText: null,
    replyToSenderName: null,
    replyToSenderIsBot: null,
    quoteText: null,
    forkId: null,
    editedAt: null,
    deletedAt: null,
    senderRole: null,
    forwardedFrom: null,
    viaBot: null,
    replyToChatTitle: null,
    ...patch,
  };
}

/** A context message (as buildContext makes it) for pure tests of formatting and prompts. */
export function cmsg(id: number, patch: Partial<ContextMessage> = {}): ContextMessage {
  return { ...msg(id), origin: "recent", previousSentAt: null, ...patch };
}
