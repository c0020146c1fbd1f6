import { hasAttachment, messageWithRevisions, recordOperatorEdit } from "../../db/message-edits";
import { AppError } from "../../errors";
import { publish } from "../../events/bus";
import type { SendDeps } from "../../pipeline/send-to-chat";
import { changeableMessage, platformFailure } from "./sent-message";

/**
 * An operator changes the text of the agent's answer or an operator's message in the
 * chat (a file's caption when it carries one), then in the history: the text it
 * replaces is kept with who replaced it and when; the model sees the new text from the
 * next turn on. The same text as now is a 409 without asking the platform.
 */
export async function editMessage(deps: Pick<SendDeps, "db" | "channels">, input: { messageId: number; text: string; operator: string }) {
  const { message, adapter } = await changeableMessage(deps, input.messageId, "edit");
  if (message.text === input.text) throw new AppError("conflict", "not modified: the new text is the same as the message's text");
  const request = {
    chatId: message.conversation.platformChatId,
    platformMessageId: message.platformMessageId!,
    currentText: message.text,
    text: input.text,
    caption: await hasAttachment(deps.db, message.id),
  };
  try {
    await adapter.editMessage!(request);
  } catch (error) {
    platformFailure(error, "edit");
  }
  const changed = await recordOperatorEdit(deps.db, {
    messageId: message.id,
    previousText: message.text,
    text: input.text,
    at: new Date(),
    by: input.operator,
  });
  // Another operator's change landed between the read and this write: the chat has this text now, the history theirs.
  if (!changed) throw new AppError("conflict", "the message changed meanwhile (edited or deleted by someone else): reload it");
  publish(deps.db, { type: "message", conversationId: message.conversationId, messageId: message.id });
  return { message: await messageWithRevisions(deps.db, message.id) };
}
