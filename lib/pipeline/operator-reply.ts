import { z } from "zod";
import type { Database } from "../db/database";
import { findConversation } from "../db/conversations";
import { findMessage } from "../db/messages";
import { operatorAddress } from "../envelope/address";
import { notFound } from "../errors";
import { sendToChat, type SendDeps } from "./send-to-chat";

export const replyBodySchema = z.object({ text: z.string().trim().min(1, "write a message").max(4000) });

export type OperatorReplyInput = { messageId: number; text: string; operator: string };

/** The envelope that carried a message in or out, to thread the reply under it. */
async function envelopeOf(db: Database, messageId: number) {
  const envelope = await db.prisma.envelope.findFirst({ where: { messageId }, orderBy: { id: "asc" }, select: { id: true } });
  return envelope?.id ?? null;
}

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
    replyToEnvelopeId: await envelopeOf(deps.db, message.id),
    forkId: message.forkId,
  });
}

export type OperatorMessageInput = { conversationId: number; text: string; operator: string };

/**
 * A plain message from the dashboard's composer: an outbound envelope from
 * operator:<name>, not a reply to anything, in the conversation's active fork if
 * one is active (the chat's next messages continue it too).
 */
export async function sendOperatorMessage(deps: SendDeps, input: OperatorMessageInput) {
  const conversation = await findConversation(deps.db, input.conversationId);
  if (!conversation) throw notFound("conversation");
  return sendToChat(deps, {
    from: operatorAddress(input.operator),
    senderKind: "operator",
    senderName: input.operator,
    conversation,
    text: input.text,
    replyTo: null,
    replyToEnvelopeId: null,
    forkId: conversation.activeForkId,
  });
}
