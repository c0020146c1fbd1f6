import type { webhook } from "@line/bot-sdk";
import type { ChatType, InboundMessage } from "../types";

const PLACEHOLDER: Record<string, string> = { image: "[photo]", video: "[video]", audio: "[audio]", file: "[file]", location: "[location]", sticker: "[sticker]" };

/**
 * Turns a LINE message event into the pipeline's InboundMessage (the same shape
 * Telegram's parser produces); null for other events (follow, postback, …).
 * The reply token travels in `platform`, never to the model.
 */
export function parseLineEvent(event: webhook.Event, receivedAt: number): InboundMessage | null {
  if (event.type !== "message") return null;
  const { message, source } = event as webhook.MessageEvent;
  if (!source) return null;
  const chat: { id: string; type: ChatType } =
    source.type === "group"
      ? { id: (source as webhook.GroupSource).groupId, type: "group" }
      : source.type === "room"
        ? { id: (source as webhook.RoomSource).roomId, type: "room" }
        : { id: (source as webhook.UserSource).userId ?? "unknown", type: "private" };
  const userId = (source as { userId?: string }).userId ?? "unknown";
  const text = message.type === "text" ? (message as webhook.TextMessageContent).text : (PLACEHOLDER[message.type] ?? `[${message.type}]`);
  const textMessage = message.type === "text" ? (message as webhook.TextMessageContent) : null;
  const mentionees = textMessage?.mention?.mentionees ?? [];
  const replyToken = (event as webhook.MessageEvent).replyToken;
  return {
    channel: "line",
    // Stable across LINE's redeliveries of the same event.
    updateId: event.webhookEventId,
    kind: "new",
    chat,
    message: { id: message.id, text, sentAt: new Date(event.timestamp) },
    // LINE sends no display name with events; the profile API would cost a call per message.
    sender: { id: userId, name: `LINE user ${userId.slice(-4)}`, isBot: false },
    replyTo: textMessage?.quotedMessageId ? { id: textMessage.quotedMessageId, fromSelf: false } : undefined,
    addressesBot: mentionees.some((m) => (m as { isSelf?: boolean }).isSelf === true),
    platform: {
      ...(replyToken ? { replyToken, receivedAt } : {}),
      ...(textMessage?.quoteToken ? { quoteToken: textMessage.quoteToken } : {}),
    },
  };
}
