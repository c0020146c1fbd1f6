import { shortDuration } from "../context/duration";
import type { ContextMessage, StoredMessage } from "../context/types";
import { sanitizeBody, sanitizeInline, sanitizeName } from "./sanitize";

export type ReplyTarget = Pick<StoredMessage, "text" | "senderKind" | "senderName"> & Partial<Pick<StoredMessage, "deletedAt">>;

export type FormatOptions = {
  channel: string;
  /** Time of the message before this one, for the elapsed part of the header. */
  previousAt: Date | null;
  /** The stored replied-to message, when we have it (database first). */
  target: ReplyTarget | null;
  quoteMaxChars: number;
};

/** "2026-11-22 14:03 UTC" */
export function formatTime(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** Who wrote the replied-to message: `agent` for the bot itself, else a name, else `unknown`. */
export function replySenderLabel(message: StoredMessage, target: ReplyTarget | null): string {
  if (target) {
    if (target.senderKind === "agent" || target.senderKind === "operator") return "agent";
    return sanitizeName(target.senderName) ?? "unknown";
  }
  if (message.replyToSenderIsBot) return "agent";
  return sanitizeName(message.replyToSenderName) ?? "unknown";
}

/**
 * The one annotation line for a reply: `[↩ reply to <sender>: "<text>"]`. The text
 * is the user's selected quote, else the replied-to text (stored copy first, the
 * platform's copy as fallback), sanitized and cut to `quoteMaxChars` plus "...".
 * Null when the message is not a reply or nothing is known of the target.
 */
export function replyAnnotation(message: StoredMessage, target: ReplyTarget | null, quoteMaxChars: number): string | null {
  const isReply = message.replyToMessageId !== null || message.replyToText !== null || message.quoteText !== null || message.replyToSenderName !== null;
  if (!isReply) return null;
  // A target its sender took back is not quoted (the platform's copy neither).
  const raw = target?.deletedAt ? "(message deleted)" : (message.quoteText ?? target?.text ?? message.replyToText ?? "");
  const text = sanitizeInline(raw, quoteMaxChars);
  // A reply to another chat's message (Telegram external_reply) says which chat.
  const chat = target ? undefined : sanitizeName(message.replyToChatTitle);
  return `[↩ reply to ${replySenderLabel(message, target)}${chat ? ` in ${chat}` : ""}: "${text}"]`;
}

/**
 * One inbound message as the model sees it: a header (channel, sender, time,
 * elapsed since the previous message), the reply annotation when it is a reply,
 * then the sanitized body. Platform ids never appear.
 */
export function formatEnvelope(message: ContextMessage, options: FormatOptions): string {
  const sender = sanitizeName(message.senderName) ?? "unknown";
  const parts = [`--- ${options.channel}`, `from ${sender}`, formatTime(message.sentAt)];
  if (options.previousAt) parts.push(`${shortDuration(message.sentAt.getTime() - options.previousAt.getTime())} after the previous message`);
  if (message.origin === "reply-context") parts.push("earlier message, shown because the user's reply points here");
  const forwardedFrom = sanitizeName(message.forwardedFrom);
  if (forwardedFrom) parts.push(`forwarded from ${forwardedFrom}`);
  const viaBot = sanitizeName(message.viaBot);
  if (viaBot) parts.push(`via @${viaBot}`);
  // The sender took it back (LINE unsend): its text is theirs to withdraw, never shown again.
  if (message.deletedAt) parts.push("(deleted by the sender)");
  else if (message.editedAt) parts.push("(edited)");
  const lines = [parts.join(" · ")];
  const annotation = replyAnnotation(message, options.target, options.quoteMaxChars);
  if (annotation) lines.push(annotation);
  lines.push(message.deletedAt ? "(message deleted)" : sanitizeBody(message.text));
  return lines.join("\n");
}
