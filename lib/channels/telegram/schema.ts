import { z } from "zod";

/**
 * The fields of a Telegram Update the parser reads, validated one by one (Bot API
 * 9.x reference: Update, Message, User, Chat, MessageOrigin, ExternalReplyInfo,
 * TextQuote, MessageEntity, ChatMemberUpdated, ForumTopicCreated). A field we read
 * with the wrong type makes the whole update unreadable (400, nothing stored);
 * optional fields get the defaults the reference documents (`is_bot` false, no
 * entities); every field we do not read passes through untouched.
 */

/** Telegram dates are Unix seconds; anything past year 9999 is not a date. */
const MAX_UNIX_SECONDS = 253_402_300_799;
/** Bot API text and captions are far below this; the cap keeps a row bounded. */
const MAX_TEXT = 1 << 16;

const id = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
const positiveId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const shortText = z.string().max(4096);
const date = z.number().int().min(0).max(MAX_UNIX_SECONDS);

export const userSchema = z.looseObject({
  id,
  // Old payloads (Telegram's own webhook examples) have no is_bot: a person.
  is_bot: z.boolean().default(false),
  first_name: shortText.default(""),
  last_name: shortText.optional(),
  username: shortText.optional(),
  /** IETF language tag of the user's client (the contact panel shows it). */
  language_code: z.string().max(35).optional(),
});

export const chatSchema = z.looseObject({
  id,
  // Telegram's own older examples omit type; an unknown type is treated as a group.
  type: z.string().max(32).default("private"),
  title: shortText.optional(),
  username: shortText.optional(),
  first_name: shortText.optional(),
  last_name: shortText.optional(),
  is_forum: z.boolean().optional(),
});

const entitySchema = z.looseObject({
  type: z.string().max(64),
  offset: z.number().int().min(0).max(MAX_TEXT),
  length: z.number().int().min(0).max(MAX_TEXT),
  user: z.looseObject({ id }).optional(),
});

/** MessageOrigin: who first sent a forwarded message or an external reply's message. */
export const originSchema = z.looseObject({
  type: z.string().max(32),
  date: date.optional(),
  sender_user: userSchema.optional(),
  sender_user_name: shortText.optional(),
  sender_chat: chatSchema.optional(),
  chat: chatSchema.optional(),
  author_signature: shortText.optional(),
});

const topicSchema = z.looseObject({ name: shortText.optional() });

/** A Message without its reply: reply_to_message is never nested further (Bot API). */
const baseMessage = {
  message_id: positiveId,
  message_thread_id: positiveId.optional(),
  date,
  edit_date: date.optional(),
  chat: chatSchema,
  from: userSchema.optional(),
  sender_chat: chatSchema.optional(),
  author_signature: shortText.optional(),
  is_topic_message: z.boolean().optional(),
  is_automatic_forward: z.boolean().optional(),
  via_bot: userSchema.optional(),
  text: z.string().max(MAX_TEXT).optional(),
  caption: z.string().max(MAX_TEXT).optional(),
  entities: z.array(entitySchema).max(1000).optional(),
  caption_entities: z.array(entitySchema).max(1000).optional(),
  forward_origin: originSchema.optional(),
  // Before Bot API 7.0 forwards carried these instead of forward_origin.
  forward_from: userSchema.optional(),
  forward_from_chat: chatSchema.optional(),
  forward_sender_name: shortText.optional(),
  forum_topic_created: topicSchema.optional(),
  forum_topic_edited: topicSchema.optional(),
};

export const repliedMessageSchema = z.looseObject(baseMessage);

export const messageSchema = z.looseObject({
  ...baseMessage,
  reply_to_message: repliedMessageSchema.optional(),
  external_reply: z
    .looseObject({
      // Required by the reference, but a missing origin only costs us the name.
      origin: originSchema.optional(),
      chat: chatSchema.optional(),
      message_id: positiveId.optional(),
    })
    .optional(),
  quote: z.looseObject({ text: z.string().max(MAX_TEXT), position: z.number().int().min(0).optional() }).optional(),
});

const memberSchema = z.looseObject({ status: z.string().max(32), user: userSchema.optional() });

export const chatMemberUpdatedSchema = z.looseObject({
  chat: chatSchema,
  from: userSchema.optional(),
  date,
  old_chat_member: memberSchema.optional(),
  new_chat_member: memberSchema,
});

/** Update fields whose content the parser reads; every other field is acknowledged by name. */
export const updateSchema = z.looseObject({
  update_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  message: messageSchema.optional(),
  edited_message: messageSchema.optional(),
  channel_post: messageSchema.optional(),
  edited_channel_post: messageSchema.optional(),
  my_chat_member: chatMemberUpdatedSchema.optional(),
});

export type TgUser = z.infer<typeof userSchema>;
export type TgChat = z.infer<typeof chatSchema>;
export type TgOrigin = z.infer<typeof originSchema>;
export type TgRepliedMessage = z.infer<typeof repliedMessageSchema>;
export type TgMessage = z.infer<typeof messageSchema>;
export type TgChatMemberUpdated = z.infer<typeof chatMemberUpdatedSchema>;
export type TgUpdate = z.infer<typeof updateSchema>;
