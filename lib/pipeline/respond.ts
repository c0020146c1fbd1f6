import { generateText, stepCountIs } from "ai";
import type { ModelHandle } from "../agent/model";
import { buildPrompt } from "../agent/prompt";
import { createReplyTool, type ReplyOutcome } from "../agent/reply-tool";
import type { ChannelAdapter } from "../channels/types";
import { buildContext } from "../context/build";
import type { Db } from "../db/client";
import { loadContextInput } from "../db/context";
import { finishEnvelope, findEnvelope } from "../db/envelopes";
import { findMessage } from "../db/messages";
import { saveTurn } from "../db/turns";
import { log } from "../log";
import { getSettings } from "../settings/store";
import { deliverToChannel } from "./deliver";

export type TurnDeps = {
  db: Db;
  channels: Record<string, ChannelAdapter>;
  /** Null: no model configured; the message waits for an operator. */
  model: ModelHandle | null;
  /** How long one model call may take. */
  timeoutMs: number;
};

/** A model failure worth another attempt later (5xx, timeout, malformed output). */
export class TurnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TurnError";
  }
}

/**
 * One agent turn for an inbound envelope: build the context and prompt, let the
 * model decide whether to call `reply`, deliver at most once, record the turn
 * for the prompt inspector, and end the envelope. Throws TurnError when the model
 * failed before anything was sent, so the worker can retry with backoff.
 */
export async function runAgentTurn(deps: TurnDeps, envelopeId: number): Promise<void> {
  const { db } = deps;
  const envelope = await findEnvelope(db, envelopeId);
  if (!envelope || envelope.status === "done" || envelope.status === "failed") return;
  const message = envelope.messageId ? await findMessage(db, envelope.messageId) : null;
  if (!message) {
    await finishEnvelope(db, envelopeId, { status: "failed", error: "the envelope's message is missing" });
    return;
  }
  if (!deps.model) {
    await finishEnvelope(db, envelopeId, { status: "done", metadata: { skipped: "no model configured" } });
    return;
  }

  const settings = await getSettings(db);
  const current = message;
  const input = await loadContextInput(db, { current, settings });
  const context = buildContext({ current, ...input, settings });
  const prompt = buildPrompt({ context, currentId: current.id, conversation: message.conversation, settings });

  const toolCalls: { message: string; outcome: ReplyOutcome }[] = [];
  let sent = false;
  const reply = createReplyTool({
    sendReply: async (text) => {
      const result = await deliverToChannel(deps, {
        from: envelope.to,
        senderKind: "agent",
        senderName: settings.agentName,
        conversation: message.conversation,
        text,
        replyTo: message,
        replyToEnvelopeId: envelope.id,
        forkId: message.forkId,
        dedupeKey: `reply:${envelope.id}`,
        platform: (envelope.metadata as { platform?: Record<string, unknown> }).platform,
      });
      let outcome: ReplyOutcome;
      if (result.ok) {
        sent = true;
        outcome = { status: "sent" };
      } else if (result.duplicate) {
        sent = true;
        outcome = { error: "you already answered this message" };
      } else {
        log.warn("agent.reply_failed", { envelopeId, error: result.error });
        outcome = { error: result.error === "failed to save message" ? "failed to save message" : "failed to send reply" };
      }
      toolCalls.push({ message: text, outcome });
      return outcome;
    },
  });

  const started = performance.now();
  let usage: Record<string, unknown> = {};
  let error: string | null = null;
  try {
    const result = await generateText({
      model: deps.model.model,
      system: prompt.system,
      messages: prompt.messages,
      tools: { reply },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(deps.timeoutMs),
    });
    usage = { ...result.totalUsage };
  } catch (e) {
    error = (e as Error).message || String(e);
  }
  const latencyMs = Math.round(performance.now() - started);
  await saveTurn(db, {
    envelopeId,
    conversationId: message.conversationId,
    forkId: message.forkId,
    model: `${deps.model.provider}:${deps.model.modelId}`,
    system: prompt.system,
    prompt: prompt.messages,
    toolCalls,
    usage,
    latencyMs,
    error,
  });
  // A failure after the reply went out ends the turn: retrying could not send again
  // anyway (dedupe key), and the user already has the answer.
  if (error && !sent) throw new TurnError(`model call failed: ${error}`);
  await finishEnvelope(db, envelopeId, { status: "done", metadata: { replied: sent, ...(error ? { modelError: error } : {}) } });
}
