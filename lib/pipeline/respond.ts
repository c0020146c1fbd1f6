import { generateText, stepCountIs } from "ai";
import type { ModelHandle } from "../agent/model";
import { buildPrompt, type Prompt } from "../agent/prompt";
import { createReplyTool, type ReplyOutcome } from "../agent/reply-tool";
import type { ChannelAdapter } from "../channels/types";
import { buildContext } from "../context/build";
import type { Db } from "../db/client";
import { loadContextInput } from "../db/context";
import { finishEnvelope, findEnvelope } from "../db/envelopes";
import { updateFork } from "../db/forks";
import { findMessage } from "../db/messages";
import { saveTurn } from "../db/turns";
import { log } from "../log";
import type { Settings } from "../settings/schema";
import { getSettings } from "../settings/store";
import { deliverToChannel, type DeliverInput } from "./deliver";

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

export const FORK_CONFLICT_NOTICE =
  "You're replying to an earlier side thread while another one is still open here. Let's finish the open one first — or ask for it to be closed.";

type Envelope = NonNullable<Awaited<ReturnType<typeof findEnvelope>>>;

/**
 * Runs the model once with the `reply` tool bound to one delivery: at most one
 * message goes out (per-turn guard, and a dedupe key across retries), the turn is
 * recorded for the prompt inspector. Throws TurnError when the model failed
 * before anything was sent, so the worker retries with backoff.
 */
export async function executeTurn(
  deps: TurnDeps & { model: ModelHandle },
  input: { envelope: Envelope; conversationId: number; forkId: number | null; prompt: Prompt; delivery: Omit<DeliverInput, "text" | "dedupeKey"> },
): Promise<{ sent: boolean }> {
  const { envelope } = input;
  const toolCalls: { message: string; outcome: ReplyOutcome }[] = [];
  let sent = false;
  // Why no reply reached the user, when one was attempted (shown on the turn and the envelope).
  let deliveryFailure: string | null = null;
  let outcomeUnknown = false;
  const reply = createReplyTool({
    sendReply: async (text) => {
      const result = await deliverToChannel(deps, { ...input.delivery, text, dedupeKey: `reply:${envelope.id}` });
      let outcome: ReplyOutcome;
      if (result.ok) {
        sent = true;
        outcome = { status: "sent" };
      } else if (result.duplicate === "delivered") {
        sent = true;
        outcome = { error: "you already answered this message" };
      } else {
        log.warn("agent.reply_failed", { envelopeId: envelope.id, error: result.error });
        outcomeUnknown = result.duplicate === "unknown" || result.outcome === "unknown";
        deliveryFailure = result.error;
        // Never "you already answered" unless it was: the model (and the operator) must not be told the user got it.
        outcome = {
          error: result.error === "failed to save message" ? "failed to save message" : outcomeUnknown ? "the reply may not have reached the user (the platform did not confirm it); it was not sent again" : "failed to send reply",
        };
      }
      toolCalls.push({ message: text, outcome });
      return outcome;
    },
  });

  const started = performance.now();
  let usage: Record<string, unknown> = {};
  let error: string | null = null;
  let malformed: string | null = null;
  try {
    const result = await generateText({
      model: deps.model.model,
      system: input.prompt.system,
      messages: input.prompt.messages,
      tools: { reply },
      // Once the reply is out there is nothing left to do (it works once per turn):
      // no further model call. A failed send goes back to the model as the tool's error.
      stopWhen: [() => sent, stepCountIs(3)],
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(deps.timeoutMs),
    });
    usage = { ...result.totalUsage };
    // Tool calls the SDK could not run (bad arguments, unknown tool): recorded, never silent.
    for (const part of result.steps.flatMap((step) => step.content)) {
      if (part.type !== "tool-error") continue;
      const reason = part.error instanceof Error ? part.error.message : String(part.error);
      malformed ??= `malformed tool call (${part.toolName}): ${reason.slice(0, 300)}`;
      toolCalls.push({ message: JSON.stringify(part.input ?? null).slice(0, 2000), outcome: { error: `malformed call: ${reason.slice(0, 300)}` } });
    }
  } catch (e) {
    error = (e as Error).message || String(e);
  }
  const turnError = error ?? (!sent && deliveryFailure ? `reply not delivered: ${deliveryFailure}` : null) ?? (!sent ? malformed : null);
  await saveTurn(deps.db, {
    envelopeId: envelope.id,
    conversationId: input.conversationId,
    forkId: input.forkId,
    model: `${deps.model.provider}:${deps.model.modelId}`,
    system: input.prompt.system,
    prompt: input.prompt.messages,
    toolCalls,
    usage,
    latencyMs: Math.round(performance.now() - started),
    error: turnError,
  });
  // A failure after the reply went out ends the turn: the user has the answer.
  if (error && !sent) throw new TurnError(`model call failed: ${error}`);
  if (!sent && (deliveryFailure || malformed) && !outcomeUnknown) {
    // Nothing reached the user: the envelope fails with the reason, so the operator sees it (and can retry).
    await finishEnvelope(deps.db, envelope.id, { status: "failed", error: turnError!, metadata: { replied: false } });
    return { sent };
  }
  // An unknown outcome is shown on the reply itself (kept in the history as possibly delivered).
  await finishEnvelope(deps.db, envelope.id, { status: "done", metadata: { replied: outcomeUnknown ? "unknown" : sent, ...(error ? { modelError: error } : {}), ...(turnError ? { turnError } : {}) } });
  return { sent };
}

/**
 * One agent turn for an inbound chat message: build the context (the message's
 * session: main, or an interactive fork with the main session's pending updates)
 * and prompt, let the model decide whether to call `reply`, deliver at most once
 * as a native reply, and end the envelope.
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
  const settings = await getSettings(db);
  const delivery = {
    from: envelope.to,
    senderKind: "agent" as const,
    senderName: settings.agentName,
    conversation: message.conversation,
    replyTo: message,
    replyToEnvelopeId: envelope.id,
    forkId: message.forkId,
    platform: (envelope.metadata as { platform?: Record<string, unknown> }).platform,
  };
  if ((envelope.metadata as { forkConflict?: boolean }).forkConflict) {
    // No nesting of forks: tell the user (the operator sees the flag on the envelope).
    await deliverToChannel(deps, { ...delivery, text: FORK_CONFLICT_NOTICE, dedupeKey: `reply:${envelope.id}` });
    await finishEnvelope(db, envelopeId, { status: "done", metadata: { replied: true, notice: "fork conflict" } });
    return;
  }
  if (!deps.model) {
    await finishEnvelope(db, envelopeId, { status: "done", metadata: { skipped: "no model configured" } });
    return;
  }
  const input = await loadContextInput(db, { current: message, settings });
  const context = buildContext({ current: message, ...input, settings });
  const prompt = buildPrompt({ context, currentId: message.id, conversation: message.conversation, settings, pendingUpdates: input.pendingUpdates });
  await executeTurn({ ...deps, model: deps.model }, { envelope, conversationId: message.conversationId, forkId: message.forkId, prompt, delivery });
  if (message.forkId) await updateFork(db, message.forkId, { lastActivityAt: new Date() });
}

export type { Settings };
