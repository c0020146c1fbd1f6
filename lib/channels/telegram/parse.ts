import type { Message, MessageEntity, Update, User } from "grammy/types";
import type { ChatType, InboundMessage } from "../types";

export type BotIdentity = { id: number; username: string };

/** Media kinds stored as a placeholder when a message has no text. */
const MEDIA = ["photo", "video", "animation", "audio", "voice", "video_note", "document", "sticker", "location", "contact", "poll", "dice", "venue"] as const;

export function displayName(user: Pick<User, "first_name" | "last_name" | "username"> | undefined): string | undefined {
  if (!user) return undefined;
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ").trim();
  return name || user.username || undefined;
}

/** Text, else caption, with a `[photo]`-style marker for media. */
export function messageText(message: Message): string {
  const body = message.text ?? message.caption ?? "";
  const media = MEDIA.find((kind) => (message as unknown as Record<string, unknown>)[kind] !== undefined);
  if (!media) return body;
  return body ? `[${media.replace("_", " ")}] ${body}` : `[${media.replace("_", " ")}]`;
}

function entityText(text: string, entity: MessageEntity): string {
  // Telegram offsets count UTF-16 code units, as JavaScript strings do.
  return text.slice(entity.offset, entity.offset + entity.length);
}

/** @mention, text_mention, or a leading /command (bare or @this_bot). */
export function addressesBot(message: Message, bot: BotIdentity): boolean {
  const text = message.text ?? message.caption ?? "";
  const entities = message.entities ?? message.caption_entities ?? [];
  const me = `@${bot.username}`.toLowerCase();
  return entities.some((entity) => {
    if (entity.type === "mention") return entityText(text, entity).toLowerCase() === me;
    // Untrusted input: a text_mention without its user must not throw.
    if (entity.type === "text_mention") return (entity as { user?: { id?: number } }).user?.id === bot.id;
    if (entity.type === "bot_command" && entity.offset === 0) {
      const [, target] = entityText(text, entity).split("@");
      return !target || `@${target}`.toLowerCase() === me;
    }
    return false;
  });
}

function chatType(type: string): ChatType {
  return type === "private" || type === "group" || type === "supergroup" || type === "channel" ? type : "group";
}

/**
 * Turns a Telegram update into the pipeline's InboundMessage; null for updates
 * the pipeline does not handle (callback queries, member changes, …).
 */
export function parseUpdate(update: Update, bot: BotIdentity): InboundMessage | null {
  const message = update.message ?? update.edited_message;
  if (!message) return null;
  const from = message.from;
  const sender = from
    ? { id: String(from.id), name: displayName(from) ?? "unknown", username: from.username, isBot: from.is_bot }
    : { id: String(message.sender_chat?.id ?? message.chat.id), name: message.sender_chat?.title ?? message.chat.title ?? "unknown", isBot: false };

  let replyTo: InboundMessage["replyTo"];
  const target = message.reply_to_message;
  if (target) {
    replyTo = {
      id: String(target.message_id),
      text: messageText(target) || undefined,
      senderName: displayName(target.from) ?? target.sender_chat?.title,
      senderIsBot: target.from?.is_bot,
      fromSelf: target.from?.id === bot.id,
    };
  } else if (message.external_reply) {
    // A reply to a message in another chat: only the platform's copy exists.
    const ext = message.external_reply;
    const origin = ext.origin;
    const senderName =
      origin.type === "user" ? displayName(origin.sender_user) : origin.type === "hidden_user" ? origin.sender_user_name : origin.type === "chat" ? origin.sender_chat.title : origin.chat.title;
    replyTo = { text: message.quote?.text, senderName, fromSelf: false };
  }

  return {
    channel: "telegram",
    updateId: String(update.update_id),
    kind: update.edited_message ? "edit" : "new",
    chat: { id: String(message.chat.id), type: chatType(message.chat.type), title: message.chat.title ?? displayName(message.chat as never) },
    message: {
      id: String(message.message_id),
      text: messageText(message),
      sentAt: new Date(message.date * 1000),
      // Telegram sets message_thread_id on ordinary replies too; sending to it fails there.
      topicId: message.is_topic_message && message.message_thread_id ? String(message.message_thread_id) : undefined,
    },
    sender,
    replyTo,
    quote: message.quote?.text || undefined,
    addressesBot: addressesBot(message, bot),
  };
}
