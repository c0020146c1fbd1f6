import { DeliveryError } from "../../channels/types";
import { createEnvelope } from "../../db/envelopes";
import { findMessage, type MessageWithConversation } from "../../db/messages";
import { hasAttachment, messageWithRevisions, recordOperatorEdit } from "../../db/message-edits";
import { answerTurns, saveTurn } from "../../db/turns";
import { operatorAddress } from "../../envelope/address";
import { AppError, notFound } from "../../errors";
import { publish } from "../../events/bus";
import { refuseWithoutBot } from "../../pipeline/operator-reply";
import { type SendDeps, sendToChat } from "../../pipeline/send-to-chat";
import { processSingleton } from "../../process-global";
import { modelName } from "../../replay/models";
import { findTurnForReplay, type ReplayDeps, rebuiltPrompt, runCaptured } from "../../replay/run-replay";
import { settingsInForce } from "../../settings/reader";
import { turnUsageColumns } from "../../usage/turn-usage";
import { platformFailure } from "./sent-message";

export type RegenerateDeps = Pick<SendDeps, "db" | "channels"> & { replay: ReplayDeps };

/** The messages being regenerated in this process: a second request for one of them is a 409 (a double click). */
const running = processSingleton("regenerating", () => new Set<number>());

/**
 * Regenerate (POST /messages/{id}/regenerate): the agent's answer written again by the
 * model, live. The prompt is rebuilt as the replay's "rebuild" mode does (lib/replay):
 * the conversation up to the user's message, with today's settings and the bot's model;
 * the model runs behind its gate with the reply tool captured. Its answer replaces the
 * old one in the chat (Telegram: edited in place, the old text kept as a revision
 * "regenerate <operator>") or, when the platform cannot edit it, goes out as a new reply
 * to the same user message. A new Turn (regeneratesTurnId: the one it replaced) is
 * recorded on an envelope of its own replying to the user message's envelope, so both
 * turns stay inspectable. Allowed while the agent is paused or a human has the
 * conversation: an operator asked for it. Nothing changes when the model fails (502) or
 * answers without the reply tool (409).
 */
export async function regenerateMessage(deps: RegenerateDeps, input: { messageId: number; operator: string }) {
  const message = await findMessage(deps.db, input.messageId);
  if (!message) throw notFound("message");
  if (message.senderKind !== "agent")
    throw new AppError("conflict", `only the agent's answers can be regenerated: this one is the ${message.senderKind}'s`);
  if (message.deletedAt) throw new AppError("conflict", "the message was deleted from the chat");
  if (!message.platformMessageId)
    throw new AppError("conflict", "the message has no platform id (it was not delivered, or not confirmed): it cannot be regenerated");
  refuseWithoutBot(deps, message.conversation.channel);
  if (running.has(message.id)) throw new AppError("conflict", "this message is being regenerated already");
  running.add(message.id);
  try {
    return await regenerate(deps, message, input.operator);
  } finally {
    running.delete(message.id);
  }
}

async function regenerate(deps: RegenerateDeps, message: MessageWithConversation, operator: string) {
  const { db } = deps;
  const turns = await answerTurns(db, message.id);
  const turn = turns ? await findTurnForReplay(db, turns.answered) : null;
  if (!turns || !turn)
    throw new AppError("conflict", "no agent turn wrote this message (an automatic notice?): there is nothing to run again");
  const inForce = await settingsInForce(db, { adapter: message.conversation.channel });
  const model = (inForce.bot ? deps.replay.models.ofBot?.(inForce.bot) : undefined) ?? deps.replay.models.configured;
  if (!model) throw new AppError("conflict", "no model is configured");
  const prompt = await rebuiltPrompt(db, turn, { mode: "rebuild", variant: {} }, model.provider, inForce.settings);
  const run = await runCaptured(deps.replay, model, prompt);
  const text = run.captured.reply;
  if (text === null) {
    if (run.error) throw new AppError("bad_gateway", `not regenerated: ${run.error}`);
    throw new AppError(
      "conflict",
      run.captured.handoff !== null
        ? "not regenerated: the model handed off to a human instead of answering (nothing changed)"
        : "not regenerated: the model answered without the reply tool (it chose to stay silent; nothing changed)",
    );
  }
  if (text === message.text) throw new AppError("conflict", "not regenerated: the model wrote the same answer again");

  const userMessageId = turn.envelope.messageId!;
  const edited = await editInPlace(deps, message, text, operator);
  let answerId = message.id;
  if (!edited) {
    const userMessage = await findMessage(db, userMessageId);
    const sent = await sendToChat(deps, {
      from: turn.envelope.to,
      senderKind: "agent",
      senderName: inForce.settings.agentName,
      conversation: message.conversation,
      text,
      replyTo: userMessage,
      replyToEnvelopeId: turn.envelope.id,
      forkId: userMessage?.forkId ?? message.forkId,
    });
    if (sent.kind === "failed")
      throw new AppError(sent.outcome === "unknown" ? "bad_gateway" : "conflict", `not regenerated: not delivered: ${sent.error}`);
    if (sent.kind !== "sent") throw new AppError("bad_gateway", "not regenerated: the new answer could not be recorded");
    answerId = sent.messageId;
  }
  const mode = edited ? ("edited" as const) : ("sent" as const);
  // The regenerate's own envelope carries its turn (a turn per envelope), replying to the user message's envelope.
  const envelope = await createEnvelope(db, {
    from: operatorAddress(operator),
    to: turn.envelope.to,
    status: "done",
    text: `regenerate message ${message.id}`,
    conversationId: message.conversationId,
    messageId: answerId,
    forkId: message.forkId,
    replyToEnvelopeId: turn.envelope.id,
    metadata: { regenerate: { messageId: message.id, mode, by: operator }, replied: true },
  });
  await saveTurn(db, {
    envelopeId: envelope.id,
    conversationId: message.conversationId,
    forkId: turn.forkId,
    model: modelName(model),
    system: prompt.system,
    prompt: prompt.messages,
    toolCalls: run.captured.calls,
    usage: run.usage,
    latencyMs: run.latencyMs,
    error: run.error,
    regeneratesTurnId: turns.latest,
    ...turnUsageColumns(inForce.global.modelPrices, model, run.usage),
  });
  const regenerated = await db.prisma.turn.findUniqueOrThrow({ where: { envelopeId: envelope.id }, select: { id: true } });
  publish(db, { type: "message", conversationId: message.conversationId, messageId: answerId });
  return { message: await messageWithRevisions(db, answerId), turn: { id: regenerated.id, regeneratesTurnId: turns.latest }, mode };
}

/**
 * The new text in place of the old, through the platform's edit as PATCH /messages/{id}
 * does, the old text kept as a revision. False when the platform cannot or will not
 * edit it (LINE, too old, sent as several messages): the caller sends it anew. Anything
 * else (no answer from the platform, an edit meanwhile) stops the regenerate.
 */
async function editInPlace(deps: RegenerateDeps, message: MessageWithConversation, text: string, operator: string): Promise<boolean> {
  const adapter = deps.channels[message.conversation.channel]!;
  if (!adapter.editMessage) return false;
  try {
    await adapter.editMessage({
      chatId: message.conversation.platformChatId,
      platformMessageId: message.platformMessageId!,
      currentText: message.text,
      text,
      caption: await hasAttachment(deps.db, message.id),
    });
  } catch (error) {
    if (error instanceof DeliveryError && error.outcome === "not_sent" && !error.retryable) return false;
    platformFailure(error, "edit");
  }
  const changed = await recordOperatorEdit(deps.db, {
    messageId: message.id,
    previousText: message.text,
    text,
    at: new Date(),
    by: `regenerate ${operator}`,
  });
  if (!changed) throw new AppError("conflict", "the message changed meanwhile (edited or deleted by someone else): reload it");
  return true;
}
