import { z } from "zod";
import { OUTBOUND_TEXT_LIMIT, tooLongError } from "../channels/text-limit";
import { findConversation } from "../db/conversations";
import { firstEnvelopeIdOfMessage } from "../db/envelopes";
import { findMessage } from "../db/messages";
import { operatorAddress } from "../envelope/address";
import { AppError, notFound } from "../errors";
import { log } from "../log";
import { takeHandoff } from "./handoff";
import { sendToChat, type SendDeps, type SendResult } from "./send-to-chat";

export const replyBodySchema = z.object({
  text: z.string().trim().min(1, "write a message").max(OUTBOUND_TEXT_LIMIT, tooLongError(OUTBOUND_TEXT_LIMIT)),
});

export type OperatorReplyInput = { messageId: number; text: string; operator: string };

/**
 * What the operator gets back (201). `recorded: false`: the user got the reply but it
 * could not be saved to the history; the warning says so, and the reply must not be
 * sent again (it is not an error, which would invite a resend).
 */
export type OperatorReplyResponse =
  | { ok: true; recorded: true; envelopeId: number; messageId: number }
  | { ok: true; recorded: false; envelopeId: number; messageId: null; warning: string };

export const UNRECORDED_REPLY_WARNING = "Delivered, but it could not be saved to the conversation's history: do not send it again.";

/**
 * An operator's threaded reply from the dashboard: an outbound envelope from
 * operator:<name> with replyToEnvelopeId, sent as a native reply to the message.
 * Throws 502 only when it did not go out (or may not have: the error says so).
 */
export async function sendOperatorReply(deps: SendDeps, input: OperatorReplyInput): Promise<OperatorReplyResponse> {
  const message = await findMessage(deps.db, input.messageId);
  if (!message) throw notFound("message");
  refuseWithoutBot(deps, message.conversation.channel);
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
  await takeIfWaiting(deps, message.conversation, input.operator, result);
  return operatorResponse(result, input.operator);
}

/**
 * A conversation whose bot was removed or disabled (archived) has no adapter here: a
 * 409 that says so, before any envelope is written, not a failed send (502).
 */
export function refuseWithoutBot(deps: Pick<SendDeps, "channels">, channel: string) {
  if (!deps.channels[channel])
    throw new AppError("conflict", "this conversation's bot is removed or disabled: nothing can be sent here (its history stays readable)");
}

export type OperatorMessageInput = { conversationId: number; text: string; operator: string };

/**
 * A plain message from the dashboard's composer: an outbound envelope from
 * operator:<name>, not a reply to anything, in the conversation's active fork if
 * one is active (the chat's next messages continue it too).
 */
export async function sendOperatorMessage(deps: SendDeps, input: OperatorMessageInput): Promise<OperatorReplyResponse> {
  const conversation = await findConversation(deps.db, input.conversationId);
  if (!conversation) throw notFound("conversation");
  refuseWithoutBot(deps, conversation.channel);
  const result = await sendToChat(deps, {
    from: operatorAddress(input.operator),
    senderKind: "operator",
    senderName: input.operator,
    conversation,
    text: input.text,
    replyTo: null,
    replyToEnvelopeId: null,
    forkId: conversation.activeForkId,
  });
  await takeIfWaiting(deps, conversation, input.operator, result);
  return operatorResponse(result, input.operator);
}

/**
 * Answering a user who waits for a human is taking the conversation: otherwise the
 * inbox still says nobody came, and the wait timeout would tell the user everyone is busy.
 */
export async function takeIfWaiting(
  deps: SendDeps,
  conversation: { id: number; handoffState: string | null },
  operator: string,
  result: SendResult,
) {
  if ((result.kind !== "sent" && result.kind !== "unrecorded") || conversation.handoffState !== "waiting") return;
  try {
    await takeHandoff(deps.db, conversation.id, operator);
  } catch (error) {
    // Another operator took it meanwhile: the message stands, the handoff is theirs.
    if (!(error instanceof AppError))
      log.warn("handoff.take_on_reply_failed", { conversationId: conversation.id, error: (error as Error).message });
  }
}

/** What the operator's send means for the operator: 201 once delivered, 502 only when it did not (or may not have) go out. */
export function operatorResponse(result: SendResult, operator: string): OperatorReplyResponse {
  switch (result.kind) {
    case "sent":
      return { ok: true, recorded: true, envelopeId: result.envelopeId, messageId: result.messageId };
    case "unrecorded":
      log.warn("operator_reply.unrecorded", { envelopeId: result.envelopeId, operator, error: result.error });
      return { ok: true, recorded: false, envelopeId: result.envelopeId, messageId: null, warning: UNRECORDED_REPLY_WARNING };
    case "failed":
      throw new AppError("bad_gateway", result.error, { envelopeId: result.envelopeId, outcome: result.outcome });
    case "duplicate":
      // Operator replies carry no dedupe key; kept for completeness of the switch.
      throw new AppError("conflict", result.error, { envelopeId: result.envelopeId });
  }
}
