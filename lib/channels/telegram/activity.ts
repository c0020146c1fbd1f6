import type { Api } from "grammy";
import { log } from "../../log";
import { splitTopicChatId } from "../topic-key";
import type { ActivityTarget } from "../types";
import { toDeliveryError } from "./delivery-error";

/** Telegram shows a chat action for 5 s: renewed a little before it fades. */
export const TYPING_RENEW_MS = 4_500;

/** A chat (or forum topic) address as the Bot API takes it. */
function address(target: ActivityTarget): { chatId: string; threadId?: number } {
  const { chatId, topicId } = splitTopicChatId(target.chatId);
  const thread = topicId ?? target.topicId;
  return { chatId, ...(thread ? { threadId: Number(thread) } : {}) };
}

/** The typing indicator (sendChatAction), on the best-effort Api (no auto-retry). */
export async function showTyping(api: Api, target: ActivityTarget): Promise<void> {
  const { chatId, threadId } = address(target);
  try {
    await api.sendChatAction(chatId, "typing", threadId ? { message_thread_id: threadId } : {});
  } catch (error) {
    throw toDeliveryError(error);
  }
}

/**
 * Answer drafts (sendMessageDraft) in private chats, until the Bot API refuses the
 * method: then off for this adapter, saying why.
 */
export function answerDrafts(api: Api) {
  let refused: string | null = null;
  return {
    draftsFor: (target: ActivityTarget) => target.chatType === "private" && refused === null,
    draftsState: (): { state: "on" } | { state: "unsupported"; error: string } =>
      refused === null ? { state: "on" } : { state: "unsupported", error: refused },
    async sendDraft(target: ActivityTarget, draftId: number, text: string) {
      const { chatId, threadId } = address(target);
      try {
        await api.sendMessageDraft(Number(chatId), draftId, text, threadId ? { message_thread_id: threadId } : {});
      } catch (error) {
        const failure = toDeliveryError(error);
        if (failure.unsupported && refused === null) {
          refused = failure.message;
          log.warn("telegram.drafts_unsupported", { error: failure.message });
        }
        throw failure;
      }
    },
  };
}
