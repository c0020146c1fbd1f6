import { z } from "zod";
import { firstEnvelopeIdOfMessage } from "../db/envelopes";
import { findMessage } from "../db/messages";
import { operatorAddress } from "../envelope/address";
import { AppError, notFound } from "../errors";
import { log } from "../log";
import { takeHandoff } from "./handoff";
import { sendToChat, type SendDeps } from "./send-to-chat";

export const replyBodySchema = z.object({ text: z.string().trim().min(1, "write a message").max(4000) });

export type OperatorReplyInput = { messageId: number; text: string; operator: string };

/**
 * An operator's threaded reply from the dashboard: an outbound envelope from
 * operator:<name> with replyToEnvelopeId, sent as a native reply to the message.
 */
export async function sendOperatorReply(deps: SendDeps, input: OperatorReplyInput) {
  const message = await findMessage(deps.db, input.messageId);
  if (!message) throw notFound("message");
  const result = await sendToChat(deps, {
    from: operatorAddress(input.operator),
    senderKind: "operator",
    senderName: input.operator,
    conversation: message.conversation,
    text: input.text,
    replyTo: message,
    replyToEnvelopeId: await firstEnvelopeIdOfMessage(deps.db, message.id),
    forkId: message.forkId,
  });
  // Answering a user who waits for a human is taking the conversation: otherwise the inbox
  // still says nobody came, and the wait timeout would tell the user everyone is busy.
  if (result.ok && message.conversation.handoffState === "waiting") {
    try {
      await takeHandoff(deps.db, message.conversationId, input.operator);
    } catch (error) {
      // Another operator took it meanwhile: the reply stands, the handoff is theirs.
      if (!(error instanceof AppError)) log.warn("handoff.take_on_reply_failed", { conversationId: message.conversationId, error: (error as Error).message });
    }
  }
  return result;
}
