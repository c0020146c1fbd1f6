import { messageWithRevisions, recordOperatorDelete } from "../../db/message-edits";
import { AppError } from "../../errors";
import { publish } from "../../events/bus";
import type { SendDeps } from "../../pipeline/send-to-chat";
import { changeableMessage, platformFailure } from "./sent-message";

/**
 * An operator takes the agent's answer or an operator's message back from the chat.
 * The history keeps it, marked deleted with who and when, for operators; the model
 * no longer sees it.
 */
export async function deleteMessage(deps: Pick<SendDeps, "db" | "channels">, input: { messageId: number; operator: string }) {
  const { message, adapter } = await changeableMessage(deps, input.messageId, "delete");
  try {
    await adapter.deleteMessage!({
      chatId: message.conversation.platformChatId,
      platformMessageId: message.platformMessageId!,
      currentText: message.text,
    });
  } catch (error) {
    platformFailure(error, "delete");
  }
  if (!(await recordOperatorDelete(deps.db, { messageId: message.id, at: new Date(), by: input.operator })))
    throw new AppError("conflict", "the message was deleted meanwhile");
  publish(deps.db, { type: "message", conversationId: message.conversationId, messageId: message.id });
  return { message: await messageWithRevisions(deps.db, message.id) };
}
