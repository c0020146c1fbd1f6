import { z } from "zod";
import { firstEnvelopeIdOfMessage } from "../db/envelopes";
import { findMessage } from "../db/messages";
import { operatorAddress } from "../envelope/address";
import { notFound } from "../errors";
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
  return sendToChat(deps, {
    from: operatorAddress(input.operator),
    senderKind: "operator",
    senderName: input.operator,
    conversation: message.conversation,
    text: input.text,
    replyTo: message,
    replyToEnvelopeId: await firstEnvelopeIdOfMessage(deps.db, message.id),
    forkId: message.forkId,
  });
}
