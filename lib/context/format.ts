import { shortDuration } from "./duration";
import type { StoredMessage } from "../db/context-facts";
import type { ContextMessage } from "./types";
import { mediaLines } from "./media-line";
import { sanitizeBody, sanitizeInline, sanitizeName, userLabel } from "./sanitize";

export type ReplyTarget = Pick<StoredMessage, "text" | "senderKind" | "senderName"> &
  Partial<Pick<StoredMessage, "deletedAt" | "attachments" | "shared">>;

export type FormatOptions = {
  channel: string;
  /** Time of the message before this one in the chat (not in the prompt), for the elapsed field; null for the first. */
  previousAt: Date | null;
  /** The stored replied-to message, when we have it (database first). */
  target: ReplyTarget | null;
  quoteMaxChars: number;
};

/** The header's field separator. Names never contain it (sanitizeName), bodies never start a line with a header. */
export const FIELD_SEPARATOR = " · ";

/** "2026-11-22 14:03 UTC" */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * Who wrote the replied-to message: `agent` for the bot itself (our records, or
 * the platform saying it was this bot), else the user's label (`unknown` without
 * a name, `user "…"` for a name that reads as a reserved label).
 */
export function replySenderLabel(message: StoredMessage, target: ReplyTarget | null): string {
  if (target) return target.senderKind === "agent" || target.senderKind === "operator" ? "agent" : userLabel(target.senderName);
  return message.replyToSenderIsBot ? "agent" : userLabel(message.replyToSenderName);
}

/** Whether a stored message is a reply (to a stored message, or to one the platform described). */
export function isReply(message: StoredMessage): boolean {
  return (
    message.replyToMessageId !== null || message.replyToText !== null || message.quoteText !== null || message.replyToSenderName !== null
  );
}

/**
 * The one annotation line for a reply: `[↩ reply to <sender>: "<text>"]`. The text
 * is the user's selected quote, else the replied-to text (stored copy first, the
 * platform's copy as fallback), sanitized and cut to `quoteMaxChars` plus "...".
 * Null when the message is not a reply.
 */
export function replyAnnotation(message: StoredMessage, target: ReplyTarget | null, quoteMaxChars: number): string | null {
  if (!isReply(message)) return null;
  // A target its sender took back is not quoted (the platform's copy neither).
  // A stored target without text (a photo without caption) is quoted by what it carries, else the platform's copy.
  const carried = target && !target.text ? mediaLines(target).join(" ") : "";
  const raw = target?.deletedAt ? "(message deleted)" : (message.quoteText ?? (target?.text || carried || message.replyToText) ?? "");
  // A reply to another chat's message (Telegram external_reply) says which chat.
  const chat = target ? undefined : sanitizeName(message.replyToChatTitle);
  return `[↩ reply to ${replySenderLabel(message, target)}${chat ? ` in ${chat}` : ""}: "${sanitizeInline(raw, quoteMaxChars)}"]`;
}

/**
 * One inbound message as the model sees it: a header (channel, sender, time,
 * elapsed since the previous message in the chat, and marks for reply context
 * and edits), the reply annotation when it is a reply, then the sanitized body.
 * Platform ids never appear.
 *
 *     --- telegram · from Alice · 2026-11-20 10:02 UTC · 5m after the previous message · (edited)
 *     [↩ reply to agent: "Meeting at 3pm"]
 *     What about tomorrow?
 */
export function formatEnvelope(message: ContextMessage, options: FormatOptions): string {
  const parts = [`--- ${options.channel}`, `from ${userLabel(message.senderName)}`, formatTime(message.sentAt)];
  if (options.previousAt)
    parts.push(`${shortDuration(message.sentAt.getTime() - options.previousAt.getTime())} after the previous message`);
  if (message.origin === "reply-context") parts.push("earlier message, shown because the user's reply points here");
  // A forward's origin is a name someone else chose: labelled like a sender.
  if (message.forwardedFrom) parts.push(`forwarded from ${userLabel(message.forwardedFrom)}`);
  const viaBot = sanitizeName(message.viaBot);
  if (viaBot) parts.push(`via @${viaBot}`);
  // The sender took it back (LINE unsend): its text is theirs to withdraw, never shown again.
  if (message.deletedAt) parts.push("(deleted by the sender)");
  else if (message.editedAt) parts.push("(edited)");
  const lines = [parts.join(FIELD_SEPARATOR)];
  const annotation = replyAnnotation(message, options.target, options.quoteMaxChars);
  if (annotation) lines.push(annotation);
  if (message.deletedAt) {
    lines.push("(message deleted)");
    return lines.join("\n");
  }
  // What the message carries, one line each: our structure, never escaped (./media-line.ts).
  const media = mediaLines(message);
  lines.push(...media);
  // The caption or text is the user's, sanitized as any body.
  if (message.text || media.length === 0) lines.push(sanitizeBody(message.text));
  return lines.join("\n");
}
