import { z } from "zod";
import { OUTBOUND_TEXT_LIMIT, tooLongError } from "../../channels/text-limit";
import { attachmentView } from "../../media/attachment-views";
import { replyBodySchema } from "../../pipeline/operator-reply";
import { defineOperations, isoDate, storedJson } from "../operation";

export const messageDirection = z.enum(["inbound", "outbound"]);
export const senderKind = z.enum(["user", "agent", "operator", "system"]);

/** How a failed send ended, when it did: "unknown" = possibly delivered, "not_sent" = refused. */
const deliveryOutcome = z.enum(["not_sent", "unknown"]).nullable();

/** What a message shares that is not a file (lib/media/types.ts SharedContent). */
export const sharedContent = z.discriminatedUnion("type", [
  /** A venue has a title and address. */
  z.strictObject({
    type: z.literal("location"),
    latitude: z.number(),
    longitude: z.number(),
    title: z.string().optional(),
    address: z.string().optional(),
  }),
  z.strictObject({ type: z.literal("contact"), name: z.string(), phoneNumber: z.string().optional(), userId: z.string().optional() }),
  z.strictObject({ type: z.literal("poll"), question: z.string(), options: z.array(z.string()) }),
  z.strictObject({ type: z.literal("dice"), emoji: z.string(), value: z.number() }),
  /** Something the product names but does not show (a story, a game, an invoice…). */
  z.strictObject({ type: z.literal("other"), kind: z.string(), title: z.string().optional() }),
]);

/** A stored message, every column (the Message table). */
export const messageRow = z.strictObject({
  id: z.number().int(),
  conversationId: z.number().int(),
  direction: messageDirection,
  senderKind,
  senderPlatformId: z.string().nullable(),
  senderName: z.string().nullable(),
  senderUsername: z.string().nullable(),
  senderIsBot: z.boolean(),
  /** A group member's role or title, when the platform says. */
  senderRole: z.string().nullable(),
  /** The sender's language as the platform reports it (Telegram language_code). */
  senderLanguage: z.string().nullable(),
  text: z.string(),
  forwardedFrom: z.string().nullable(),
  viaBot: z.string().nullable(),
  /** The chat of a reply to a message in another chat. */
  replyToChatTitle: z.string().nullable(),
  platformMessageId: z.string().nullable(),
  platformTopicId: z.string().nullable(),
  replyToMessageId: z.number().int().nullable(),
  replyToPlatformId: z.string().nullable(),
  replyToText: z.string().nullable(),
  replyToSenderName: z.string().nullable(),
  replyToSenderIsBot: z.boolean().nullable(),
  quoteText: z.string().nullable(),
  threadId: z.number().int().nullable(),
  forkId: z.number().int().nullable(),
  mentionsBot: z.boolean(),
  sentAt: isoDate,
  editedAt: isoDate.nullable(),
  deletedAt: isoDate.nullable(),
  /** The operator (sign-in name) who deleted it from the chat; null when the sender took it back (LINE unsend) or it stands. */
  deletedBy: z.string().nullable(),
  /** The album it is part of (Telegram media_group_id, LINE image set); null for most messages. */
  mediaGroupId: z.string().nullable(),
  /** A location, venue, contact, poll or dice the message shares; null for most messages. */
  shared: storedJson(sharedContent.nullable()),
  createdAt: isoDate,
});

/** PATCH /messages/{id}: the new text, as long as any message an operator sends. */
export const editMessageBody = z.strictObject({
  text: z.string().trim().min(1, "write a message").max(OUTBOUND_TEXT_LIMIT, tooLongError(OUTBOUND_TEXT_LIMIT)),
});

/** An earlier text of an edited message: until when it stood, and the operator whose edit replaced it (null: the sender edited it). */
const messageRevision = z.strictObject({ text: z.string(), replacedAt: isoDate, editedBy: z.string().nullable() });

/** 200 after an edit or deletion: the message as it is now, with its earlier texts (oldest first). */
export const changedMessageResponse = z.strictObject({ message: messageRow.extend({ revisions: z.array(messageRevision) }) });

const envelopeStatus = z.enum(["pending", "processing", "done", "failed"]);

/** A message on the timeline, with the envelopes that carried it and its earlier texts (oldest first) when edited. */
export const timelineMessage = messageRow.extend({
  /** The agent turn that wrote it or answered it (the prompt inspector's), null when none did (e.g. a /human auto-reply). */
  turnId: z.number().int().nullable(),
  envelopes: z.array(
    z.strictObject({
      id: z.number().int(),
      status: envelopeStatus,
      lastDeliveryError: z.string().nullable(),
      /** A failed send: "unknown" = possibly delivered (never resent by itself), "not_sent" = refused. */
      outcome: deliveryOutcome,
      from: z.string(),
    }),
  ),
  revisions: z.array(messageRevision),
  /** Its files (photo, voice note, document…), in order; empty for a text message. */
  attachments: z.array(attachmentView),
});

/** A member of a reply tree. */
export const threadMember = z.strictObject({
  id: z.number().int(),
  conversationId: z.number().int(),
  direction: messageDirection,
  senderKind,
  senderName: z.string().nullable(),
  text: z.string(),
  sentAt: isoDate,
  replyToMessageId: z.number().int().nullable(),
  forkId: z.number().int().nullable(),
  threadId: z.number().int().nullable(),
  envelopes: z.array(
    z.strictObject({
      id: z.number().int(),
      status: envelopeStatus,
      lastDeliveryError: z.string().nullable(),
      outcome: deliveryOutcome,
      turn: z.strictObject({ id: z.number().int() }).nullable(),
    }),
  ),
  attachments: z.array(attachmentView),
});

export const messageThreadResponse = z.strictObject({
  messageId: z.number().int(),
  threadId: z.number().int().nullable(),
  members: z.array(threadMember),
});

export { replyBodySchema };
/** 201 once delivered; `recorded: false` (with a warning) when it could not be saved to the history: never send it again. */
export const replyResponse = z.discriminatedUnion("recorded", [
  z.strictObject({ ok: z.literal(true), recorded: z.literal(true), envelopeId: z.number().int(), messageId: z.number().int() }),
  z.strictObject({
    ok: z.literal(true),
    recorded: z.literal(false),
    envelopeId: z.number().int(),
    messageId: z.null(),
    warning: z.string(),
  }),
]);

/** A regenerate's answer: the message as it is now, the new turn, and whether it was edited in place or sent anew. */
export const regenerateResponse = z.strictObject({
  message: changedMessageResponse.shape.message,
  turn: z.strictObject({ id: z.number().int(), regeneratesTurnId: z.number().int() }),
  mode: z.enum(["edited", "sent"]),
});

export const operations = defineOperations([
  {
    method: "patch",
    path: "/messages/{id}",
    summary: "Edit the agent's answer or an operator's message in the chat (Telegram; a file's caption for a file)",
    body: editMessageBody,
    response: { status: 200, schema: changedMessageResponse },
    errors: {
      409: 'Not editable, with the reason: a user\'s message, LINE, deleted, not delivered, sent as several Telegram messages, the same text as now, or Telegram\'s refusal ("message can\'t be edited", "message is not modified", …)',
      502: "Telegram did not answer (nothing changed in the history)",
    },
  },
  {
    method: "delete",
    path: "/messages/{id}",
    summary:
      "Delete the agent's answer or an operator's message from the chat (Telegram); the history keeps it, marked deleted by the operator",
    response: { status: 200, schema: changedMessageResponse },
    errors: {
      409: 'Not deletable, with the reason: a user\'s message, LINE, already deleted, not delivered, sent as several Telegram messages, or Telegram\'s refusal ("message to delete not found", "message can\'t be deleted")',
      502: "Telegram did not answer (nothing changed in the history)",
    },
  },
  {
    method: "post",
    path: "/messages/{id}/regenerate",
    summary:
      "Run the turn behind the agent's answer again with today's settings and send the new answer: edited in place on Telegram, else a new reply to the same user message",
    response: { status: 200, schema: regenerateResponse },
    errors: {
      409: "Not regenerated, with the reason: not the agent's answer, deleted, not delivered, the bot removed, no turn behind it, no model, a regenerate of it already running, the model stayed silent or handed off, the same text, or the platform's refusal of the new message",
      502: "The model failed, or the platform did not answer (nothing changed)",
    },
  },
  {
    method: "get",
    path: "/messages/{id}/thread",
    summary: "The reply tree around a message (one query on the materialized thread)",
    response: { status: 200, schema: messageThreadResponse },
  },
  {
    method: "post",
    path: "/messages/{id}/reply",
    summary: "An operator's threaded reply, sent as a native reply on the platform",
    body: replyBodySchema,
    response: { status: 201, schema: replyResponse },
    errors: {
      409: "The conversation's bot is removed or disabled (nothing written)",
      502: "Not delivered (recorded on the envelope; `details.envelopeId`, and `details.outcome`: not_sent, or unknown = possibly delivered)",
    },
  },
]);
