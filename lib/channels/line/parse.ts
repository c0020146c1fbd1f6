import { z } from "zod";
import type { ChatType, InboundChat, InboundEvent } from "../types";
import { lineMedia } from "./media";

/**
 * LINE webhook events, validated one at a time (Messaging API reference, webhook
 * event objects as of 2025: message, messageEdited, unsend, follow, unfollow, join,
 * leave, memberJoined, memberLeft, postback, beacon, accountLink, videoPlayComplete,
 * activated/deactivated, botSuspended/botResumed, membership, module, things).
 * Fields the parser reads are typed; everything else passes through.
 */
const text = z.string().max(1 << 16);
const sourceSchema = z.looseObject({
  type: z.enum(["user", "group", "room"]),
  userId: z.string().min(1).max(128).optional(),
  groupId: z.string().min(1).max(128).optional(),
  roomId: z.string().min(1).max(128).optional(),
});

export const lineEventSchema = z.looseObject({
  type: z.string().min(1).max(64),
  mode: z.string().max(32).default("active"),
  timestamp: z.number().int().min(0).max(253_402_300_799_000),
  webhookEventId: z.string().min(1).max(128),
  replyToken: z.string().max(256).optional(),
  source: sourceSchema.optional(),
  deliveryContext: z.looseObject({ isRedelivery: z.boolean().default(false) }).optional(),
  message: z
    .looseObject({
      id: z.string().min(1).max(128).optional(),
      type: z.string().min(1).max(64),
      text: text.optional(),
      quoteToken: z.string().max(512).optional(),
      quotedMessageId: z.string().max(128).optional(),
      mention: z
        .looseObject({ mentionees: z.array(z.looseObject({ isSelf: z.boolean().optional(), type: z.string().optional() })).max(100) })
        .optional(),
      fileName: text.optional(),
      title: text.optional(),
      address: text.optional(),
      // Media (read leniently by ./media.ts): contentProvider, duration, fileSize, imageSet,
      // latitude/longitude, packageId/stickerId/stickerResourceType/keywords.
    })
    .optional(),
  unsend: z.looseObject({ messageId: z.string().min(1).max(128) }).optional(),
});

export type LineEvent = z.infer<typeof lineEventSchema>;

/** Event types acknowledged without storing, with the logged reason. */
const IGNORED: Record<string, string> = {
  postback: "the bot sends no templates or quick replies, so postbacks carry nothing for it",
  beacon: "beacons are not part of the conversation",
  accountLink: "account linking is not used",
  memberJoined: "other members joining do not concern the bot",
  memberLeft: "other members leaving do not concern the bot",
  videoPlayComplete: "the bot sends no tracked videos",
  things: "LINE Things devices are not used",
  module: "module channels are not used",
  activated: "module channels are not used",
  deactivated: "module channels are not used",
  botSuspended: "module channels are not used",
  botResumed: "module channels are not used",
  membership: "LINE memberships are not used",
};

function lineChat(source: NonNullable<LineEvent["source"]>): InboundChat | null {
  const id = source.type === "group" ? source.groupId : source.type === "room" ? source.roomId : source.userId;
  if (!id) return null;
  const type: ChatType = source.type === "user" ? "private" : source.type;
  return { id, type };
}

/** What the user wrote: a text message's text; media carry none (./media.ts describes them). */
function messageText(message: NonNullable<LineEvent["message"]>): string {
  return message.type === "text" ? (message.text ?? "") : "";
}

/**
 * Turns one validated LINE event into what the pipeline does with it (the same
 * InboundMessage Telegram's parser produces for messages). The reply token
 * travels in `platform`, never to the model. Events without a message id are
 * still deduplicated by webhookEventId, which is stable across redeliveries.
 */
export function parseLineEvent(event: LineEvent, receivedAt: number): InboundEvent {
  const at = new Date(event.timestamp);
  if (IGNORED[event.type]) return { type: "ignored", reason: IGNORED[event.type] };
  if (!event.source) return { type: "ignored", reason: `${event.type} event without a source` };
  const chat = lineChat(event.source);
  if (!chat) return { type: "ignored", reason: `${event.type} event from a source without an id` };
  const base = { channel: "line", updateId: event.webhookEventId };
  switch (event.type) {
    case "unsend":
      if (!event.unsend) return { type: "ignored", reason: "unsend event without unsend.messageId" };
      return { ...base, type: "deleted", chat, messageId: event.unsend.messageId, at };
    case "follow":
    case "join":
      return { ...base, type: "membership", chat, membership: null, at };
    case "unfollow":
      return { ...base, type: "membership", chat, membership: "blocked", at };
    case "leave":
      return { ...base, type: "membership", chat, membership: "removed", at };
    case "message":
    case "messageEdited":
      break;
    default:
      return { type: "ignored", reason: `unknown event type ${event.type.slice(0, 64)}` };
  }
  const message = event.message;
  if (!message) return { type: "ignored", reason: `${event.type} event without a message` };
  // Standby: another channel (a module) owns the chat; stored for the record, never answered (platform.standby).
  const standby = event.mode === "standby";
  // Groups and rooms omit userId for users who have not consented to share it.
  const userId = event.source.userId ?? "unknown";
  const name = event.source.userId ? `LINE user ${userId.slice(-4)}` : "unknown LINE user";
  const mentionees = message.mention?.mentionees ?? [];
  const media = lineMedia(message);
  return {
    type: "message",
    message: {
      ...base,
      kind: event.type === "messageEdited" ? "edit" : "new",
      chat,
      // No message id (seen in odd payloads): webhookEventId stands in, unique per event.
      message: {
        id: message.id ?? `event:${event.webhookEventId}`,
        text: messageText(message),
        sentAt: at,
        ...(event.type === "messageEdited" ? { editedAt: at } : {}),
        ...(media.attachments.length ? { attachments: media.attachments } : {}),
        ...(media.shared ? { shared: media.shared } : {}),
        ...(media.mediaGroupId ? { mediaGroupId: media.mediaGroupId } : {}),
      },
      // LINE sends no display name with events; the profile API would cost a call per message.
      sender: { id: userId, name, isBot: false },
      replyTo: message.quotedMessageId ? { id: message.quotedMessageId, fromSelf: false } : undefined,
      addressesBot: mentionees.some((m) => m.isSelf === true),
      platform: {
        ...(standby ? { standby: true } : {}),
        ...(event.replyToken && !standby ? { replyToken: event.replyToken, receivedAt } : {}),
        ...(message.quoteToken ? { quoteToken: message.quoteToken } : {}),
      },
    },
  };
}
