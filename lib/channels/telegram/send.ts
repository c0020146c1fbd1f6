import { type Api, InputFile } from "grammy";
import { log } from "../../log";
import { splitText } from "../split-text";
import { splitTopicChatId } from "../topic-key";
import { DeliveryError, type EditRequest, type MediaSendRequest, type SendRequest, type SendResult, type SentMessageRef } from "../types";
import { refused, TELEGRAM_TEXT_LIMIT, telegramChangeRefusal, toDeliveryError } from "./delivery-error";

/** A text, split into messages of at most 4,096 characters; the first one's id is the message's. */
export async function sendText(api: Api, request: SendRequest): Promise<SendResult> {
  const parts = splitText(request.text, TELEGRAM_TEXT_LIMIT);
  // A forum topic's conversation is addressed "<chat>:topic:<thread>".
  const { chatId, topicId } = splitTopicChatId(request.chatId);
  const threadId = topicId ?? request.topicId;
  let first: SendResult | undefined;
  try {
    for (const [i, part] of parts.entries()) {
      const sent = await api.sendMessage(chatId, part, {
        reply_parameters:
          i === 0 && request.replyToPlatformId
            ? { message_id: Number(request.replyToPlatformId), allow_sending_without_reply: true }
            : undefined,
        message_thread_id: threadId ? Number(threadId) : undefined,
        // Ranges of user text: code entities (nothing clickable), no preview of any link in it.
        ...(request.verbatim?.length && parts.length === 1
          ? {
              entities: request.verbatim.map((range) => ({ type: "code" as const, ...range })),
              link_preview_options: { is_disabled: true },
            }
          : {}),
      });
      first ??= { platformMessageId: String(sent.message_id), sentAt: new Date(sent.date * 1000) };
    }
  } catch (error) {
    const cause = toDeliveryError(error);
    // Part of a long text already went out: the user has something.
    const failure = first
      ? new DeliveryError(`${cause.message} (after the first part was sent)`, { outcome: "unknown", retryable: false })
      : cause;
    log.warn("telegram.send_failed", {
      chatId: request.chatId,
      error: failure.message,
      outcome: failure.outcome,
      sentParts: first ? 1 : 0,
    });
    throw failure;
  }
  return first!;
}

/** A file, with the method by what the bytes are (sniffed): each shows the file its own way in the chat. */
export async function sendMedia(api: Api, request: MediaSendRequest): Promise<SendResult> {
  const { chatId, topicId } = splitTopicChatId(request.chatId);
  const threadId = topicId ?? request.topicId;
  const file = new InputFile(request.media.bytes, request.media.fileName);
  const other = {
    ...(request.caption ? { caption: request.caption } : {}),
    ...(request.replyToPlatformId
      ? { reply_parameters: { message_id: Number(request.replyToPlatformId), allow_sending_without_reply: true } }
      : {}),
    ...(threadId ? { message_thread_id: Number(threadId) } : {}),
  };
  try {
    const sent = await {
      photo: () => api.sendPhoto(chatId, file, other),
      voice: () => api.sendVoice(chatId, file, other),
      audio: () => api.sendAudio(chatId, file, other),
      video: () => api.sendVideo(chatId, file, { ...other, supports_streaming: true }),
      document: () => api.sendDocument(chatId, file, other),
    }[request.media.kind]();
    return { platformMessageId: String(sent.message_id), sentAt: new Date(sent.date * 1000) };
  } catch (error) {
    const failure = toDeliveryError(error);
    log.warn("telegram.send_media_failed", {
      chatId: request.chatId,
      kind: request.media.kind,
      error: failure.message,
      outcome: failure.outcome,
    });
    throw failure;
  }
}

/** A sent message's new text (editMessageText), or a file's new caption (editMessageCaption). */
export async function editMessage(api: Api, request: EditRequest): Promise<void> {
  const refusal = telegramChangeRefusal(request);
  if (refusal) throw refused(refusal);
  const { chatId } = splitTopicChatId(request.chatId);
  const id = Number(request.platformMessageId);
  try {
    if (request.caption) await api.editMessageCaption(chatId, id, { caption: request.text });
    else await api.editMessageText(chatId, id, request.text);
  } catch (error) {
    throw toDeliveryError(error);
  }
}

/** Deletes a sent message in the chat. */
export async function deleteMessage(api: Api, request: SentMessageRef): Promise<void> {
  const refusal = telegramChangeRefusal(request);
  if (refusal) throw refused(refusal);
  try {
    await api.deleteMessage(splitTopicChatId(request.chatId).chatId, Number(request.platformMessageId));
  } catch (error) {
    throw toDeliveryError(error);
  }
}
