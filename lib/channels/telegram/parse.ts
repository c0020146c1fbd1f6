import { topicChatId } from "../topic-key";
import type { ChatType, InboundChat, InboundEvent, InboundMessage, Membership, SenderRole } from "../types";
import { describeForQuote, telegramMedia } from "./media";
import type { TgChat, TgChatMemberUpdated, TgMessage, TgOrigin, TgRepliedMessage, TgUpdate } from "./schema";

export type BotIdentity = { id: number; username: string };

/**
 * Service messages: acknowledged, not stored as conversation messages (they are not
 * something a person said). The topic ones update the topic's name.
 */
const SERVICE = [
  "new_chat_members",
  "left_chat_member",
  "new_chat_title",
  "new_chat_photo",
  "delete_chat_photo",
  "group_chat_created",
  "supergroup_chat_created",
  "channel_chat_created",
  "message_auto_delete_timer_changed",
  "migrate_to_chat_id",
  "migrate_from_chat_id",
  "pinned_message",
  "successful_payment",
  "refunded_payment",
  "users_shared",
  "chat_shared",
  "connected_website",
  "write_access_allowed",
  "proximity_alert_triggered",
  "boost_added",
  "chat_background_set",
  "forum_topic_created",
  "forum_topic_edited",
  "forum_topic_closed",
  "forum_topic_reopened",
  "general_forum_topic_hidden",
  "general_forum_topic_unhidden",
  "giveaway_created",
  "giveaway_completed",
  "video_chat_scheduled",
  "video_chat_started",
  "video_chat_ended",
  "video_chat_participants_invited",
  "web_app_data",
  "passport_data",
  "gift",
  "unique_gift",
  "paid_message_price_changed",
  "direct_message_price_changed",
  "checklist_tasks_done",
  "checklist_tasks_added",
] as const;

/**
 * Update fields acknowledged without storing, each with the reason that is logged.
 * The bot sends no keyboards, inline results, invoices or polls, so the answers to
 * those never concern it; business chats need a business_connection_id to answer.
 */
const IGNORED_UPDATES: Record<string, string> = {
  business_connection: "business connections are not supported",
  business_message: "business chats are not supported (answering needs business_connection_id)",
  edited_business_message: "business chats are not supported",
  deleted_business_messages: "business chats are not supported",
  message_reaction: "reactions are not part of the conversation",
  message_reaction_count: "reactions are not part of the conversation",
  inline_query: "the bot offers no inline mode",
  chosen_inline_result: "the bot offers no inline mode",
  callback_query: "the bot sends no inline keyboards",
  shipping_query: "the bot sends no invoices",
  pre_checkout_query: "the bot sends no invoices",
  purchased_paid_media: "the bot sells no paid media",
  poll: "the bot sends no polls",
  poll_answer: "the bot sends no polls",
  chat_member: "other members' changes do not concern the bot",
  chat_join_request: "the bot does not approve join requests",
  chat_boost: "boosts are not part of the conversation",
  removed_chat_boost: "boosts are not part of the conversation",
};

type Named = { first_name?: string; last_name?: string; username?: string };

export function displayName(user: Named | undefined): string | undefined {
  if (!user) return undefined;
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ").trim();
  return name || user.username || undefined;
}

const chatName = (chat: TgChat | undefined) => (chat ? (chat.title ?? displayName(chat)) : undefined);

/**
 * What the user wrote: the text, else the caption — nothing else. What the message
 * carries (a photo, a sticker, a location) is its attachments and shared content
 * (./media.ts), which the prompt describes as the product's own structure.
 */
export function messageText(message: TgRepliedMessage): string {
  return message.text ?? message.caption ?? "";
}

/** A replied-to message as the platform copied it, for its quote: its text with a `[photo]`-style word for media. */
function quotedText(message: TgRepliedMessage): string {
  return describeForQuote(message as Record<string, unknown>, messageText(message));
}

type Entity = NonNullable<TgMessage["entities"]>[number];

function entityText(text: string, entity: Entity): string {
  // Telegram offsets count UTF-16 code units, as JavaScript strings do.
  return text.slice(entity.offset, entity.offset + entity.length);
}

/** @mention, text_mention, or a leading /command (bare or @this_bot). */
export function addressesBot(message: TgRepliedMessage, bot: BotIdentity): boolean {
  const text = message.text ?? message.caption ?? "";
  const entities = (message.text !== undefined ? message.entities : message.caption_entities) ?? [];
  const me = `@${bot.username}`.toLowerCase();
  return entities.some((entity) => {
    if (entity.type === "mention") return entityText(text, entity).toLowerCase() === me;
    if (entity.type === "text_mention") return entity.user?.id === bot.id;
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

/** The real origin of a forward or an external reply, as a name the model can read. */
export function originName(origin: TgOrigin | undefined): string | undefined {
  if (!origin) return undefined;
  switch (origin.type) {
    case "user":
      return displayName(origin.sender_user);
    case "hidden_user":
      return origin.sender_user_name;
    case "chat":
      return chatName(origin.sender_chat);
    case "channel": {
      const name = chatName(origin.chat);
      return name && origin.author_signature ? `${name} (${origin.author_signature})` : name;
    }
    default:
      return undefined;
  }
}

/** forward_origin, or the fields older Bot API versions sent instead. */
function forwardedFrom(message: TgMessage): string | undefined {
  if (message.forward_origin) return originName(message.forward_origin) ?? "unknown";
  // Telegram's own old examples put a channel (with a title) in forward_from.
  if (message.forward_from) return displayName(message.forward_from) ?? chatName(message.forward_from as unknown as TgChat) ?? "unknown";
  if (message.forward_from_chat) return chatName(message.forward_from_chat) ?? "unknown";
  return message.forward_sender_name;
}

/**
 * A forum topic's messages are a conversation of their own, keyed (and addressed)
 * "<chat id>:topic:<thread id>". Outside forums, message_thread_id marks ordinary
 * reply threads: those stay in the chat's conversation.
 */
function conversationChat(message: TgRepliedMessage): InboundChat {
  const chatId = String(message.chat.id);
  const base = { type: chatType(message.chat.type), title: chatName(message.chat) };
  if (message.is_topic_message && message.message_thread_id) {
    const topicId = String(message.message_thread_id);
    return { ...base, id: topicChatId(chatId, topicId), topic: { chatId, id: topicId } };
  }
  return { ...base, id: chatId };
}

/**
 * Who sent it, as Telegram means it: sender_chat wins over from, whose value is
 * then a placeholder (GroupAnonymousBot, Channel_Bot).
 */
function sender(message: TgMessage): InboundMessage["sender"] {
  if (message.chat.type === "channel")
    return { id: String(message.chat.id), name: chatName(message.chat) ?? "unknown", isBot: false, role: "channel" };
  const chat = message.sender_chat;
  if (chat) {
    const role: SenderRole =
      chat.id === message.chat.id ? "anonymous_admin" : message.is_automatic_forward ? "automatic_forward" : "channel";
    const title = chatName(chat) ?? "unknown";
    const name =
      role === "anonymous_admin"
        ? message.author_signature
          ? `${message.author_signature} (admin of ${title})`
          : `${title} (anonymous admin)`
        : title;
    return { id: String(chat.id), name, username: chat.username, isBot: false, role };
  }
  const from = message.from;
  if (!from) return { id: String(message.chat.id), name: chatName(message.chat) ?? "unknown", isBot: false };
  return {
    id: String(from.id),
    name: displayName(from) ?? "unknown",
    username: from.username,
    isBot: from.is_bot,
    ...(from.language_code ? { language: from.language_code } : {}),
  };
}

/** The topic's own creation message is where every topic message "replies": not a reply. */
function isTopicRoot(message: TgMessage, target: TgRepliedMessage): boolean {
  return target.forum_topic_created !== undefined || (message.is_topic_message === true && target.message_id === message.message_thread_id);
}

function replyTarget(message: TgMessage, bot: BotIdentity): InboundMessage["replyTo"] {
  const target = message.reply_to_message;
  if (target && !isTopicRoot(message, target)) {
    const targetSender = target.sender_chat ? chatName(target.sender_chat) : displayName(target.from);
    return {
      id: String(target.message_id),
      text: quotedText(target) || undefined,
      senderName: targetSender,
      senderIsBot: target.sender_chat ? false : target.from?.is_bot,
      fromSelf: !target.sender_chat && target.from?.id === bot.id,
    };
  }
  const ext = message.external_reply;
  if (ext) {
    // A reply to a message in another chat (or topic): only the platform's copy exists.
    return {
      text: message.quote?.text || quotedText(ext as TgRepliedMessage) || undefined,
      senderName: originName(ext.origin) ?? chatName(ext.chat),
      chatTitle: chatName(ext.chat) ?? (ext.origin?.type === "channel" ? chatName(ext.origin.chat) : undefined),
      fromSelf: false,
    };
  }
  return undefined;
}

function topicName(message: TgMessage): string | undefined {
  return message.forum_topic_created?.name ?? message.forum_topic_edited?.name ?? message.reply_to_message?.forum_topic_created?.name;
}

function parseMessage(update: TgUpdate, message: TgMessage, kind: "new" | "edit", bot: BotIdentity): InboundEvent {
  const chat = conversationChat(message);
  const name = topicName(message);
  if (chat.topic && name) chat.topic.name = name;
  const service = SERVICE.find((key) => (message as Record<string, unknown>)[key] !== undefined);
  const text = messageText(message);
  const media = telegramMedia(message as Record<string, unknown>);
  const carries = media.attachments.length > 0 || media.shared !== undefined;
  if (service && !text && !carries) {
    if (chat.topic && name && (service === "forum_topic_created" || service === "forum_topic_edited")) {
      return { type: "topic", channel: "telegram", updateId: String(update.update_id), chat: { ...chat, topic: { ...chat.topic, name } } };
    }
    return { type: "ignored", reason: `service message ${service}` };
  }
  if (!text && !carries) return { type: "ignored", reason: "message without text, caption or a known media kind" };
  return {
    type: "message",
    message: {
      channel: "telegram",
      updateId: String(update.update_id),
      kind,
      chat,
      message: {
        id: String(message.message_id),
        text,
        sentAt: new Date(message.date * 1000),
        ...(kind === "edit" && message.edit_date ? { editedAt: new Date(message.edit_date * 1000) } : {}),
        topicId: chat.topic?.id,
        forwardedFrom: forwardedFrom(message),
        viaBot: message.via_bot ? (message.via_bot.username ?? displayName(message.via_bot)) : undefined,
        ...(media.attachments.length ? { attachments: media.attachments } : {}),
        ...(media.shared ? { shared: media.shared } : {}),
        ...(media.mediaGroupId ? { mediaGroupId: media.mediaGroupId } : {}),
      },
      sender: sender(message),
      replyTo: replyTarget(message, bot),
      quote: message.quote?.text || undefined,
      addressesBot: addressesBot(message, bot),
    },
  };
}

/** my_chat_member: blocked by a user, removed from or added back to a group. */
function parseMembership(update: TgUpdate, change: TgChatMemberUpdated): InboundEvent {
  const status = change.new_chat_member.status;
  const isPrivate = change.chat.type === "private";
  const membership: Membership =
    status === "kicked" ? (isPrivate ? "blocked" : "removed") : status === "left" ? (isPrivate ? "blocked" : "left") : null;
  // "restricted" with is_member false is out of the group as well.
  const restrictedOut = status === "restricted" && (change.new_chat_member as { is_member?: boolean }).is_member === false;
  return {
    type: "membership",
    channel: "telegram",
    updateId: String(update.update_id),
    chat: { id: String(change.chat.id), type: chatType(change.chat.type), title: chatName(change.chat) },
    membership: restrictedOut ? "left" : membership,
    at: new Date(change.date * 1000),
  };
}

/**
 * Turns a validated Telegram update into what the pipeline does with it: every
 * Update field is stored, acted on, or acknowledged with a reason.
 */
export function parseUpdate(update: TgUpdate, bot: BotIdentity): InboundEvent {
  if (update.message) return parseMessage(update, update.message, "new", bot);
  if (update.edited_message) return parseMessage(update, update.edited_message, "edit", bot);
  if (update.channel_post) return parseMessage(update, update.channel_post, "new", bot);
  if (update.edited_channel_post) return parseMessage(update, update.edited_channel_post, "edit", bot);
  if (update.my_chat_member) return parseMembership(update, update.my_chat_member);
  const field = Object.keys(update).find((key) => key !== "update_id");
  if (!field) return { type: "ignored", reason: "update without content" };
  return {
    type: "ignored",
    reason:
      (Object.hasOwn(IGNORED_UPDATES, field) ? IGNORED_UPDATES[field as keyof typeof IGNORED_UPDATES] : undefined) ??
      `unknown update field ${field.slice(0, 64)} (newer Bot API?)`,
  };
}

/** For old callers and tests: the message an update carries, if any. */
export function parseMessageUpdate(update: TgUpdate, bot: BotIdentity): InboundMessage | null {
  const event = parseUpdate(update, bot);
  return event.type === "message" ? event.message : null;
}
