import { generateText, stepCountIs } from "ai";
import { RateLimitedError } from "../agent/call-limits";
import type { ModelHandle } from "../agent/model";
import { buildPrompt, type Prompt } from "../agent/prompt";
import { createReplyTool, type ReplyOutcome } from "../agent/reply-tool";
import { createHandoffTool, type HandoffOutcome } from "../agent/handoff-tool";
import type { ChannelAdapter } from "../channels/types";
import { buildContext } from "../context/build";
import type { Database } from "../db/database";
import { findStoredMessages, loadContextInput, previousSentAtOf } from "../db/context-input";
import { finishEnvelope, findEnvelope, repliedEnvelopeIds } from "../db/envelopes";
import { updateFork } from "../db/forks";
import { readHandoffState } from "../db/handoff";
import { findMessage } from "../db/messages";
import { saveTurn } from "../db/turns";
import { log } from "../log";
import type { Settings } from "../settings/schema";
import { getSettings } from "../settings/store";
import { AppError } from "../errors";
import type { TurnDeps } from "./turn-deps";
import { agentStaysSilent, handoffNoteFor } from "./handoff-rules";
import { sendToChat, type SendInput } from "./send-to-chat";

export type { TurnDeps } from "./turn-deps";

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
 * before anything was sent, so the worker retries with backoff (RateLimitedError
 * when the provider asked us to wait). A burst's earlier envelopes (`coalesced`)
 * end with the latest one, all recording the one answer.
 */
export async function executeTurn(
  deps: TurnDeps & { model: ModelHandle },
  input: {
    envelope: Envelope;
    conversationId: number;
    forkId: number | null;
    prompt: Prompt;
    delivery: Omit<SendInput, "text" | "dedupeKey">;
    coalesced?: number[];
  },
): Promise<{ sent: boolean }> {
  const { envelope } = input;
  const toolCalls: ({ message: string; outcome: ReplyOutcome } | { tool: "handoff"; message: string; outcome: HandoffOutcome })[] = [];
  let sent = false;
  // Why no reply reached the user, when one was attempted (shown on the turn and the envelope).
  let deliveryFailure: string | null = null;
  let outcomeUnknown = false;
  let answerEnvelopeId: number | null = null;
  // Set when a human was called (or took over) while the model was thinking: nothing more goes out.
  let silenced = false;
  let handedOff = false;
  const reply = createReplyTool({
    sendReply: async (text) => {
      // The turn began while the agent had the conversation; an operator may have taken it since.
      // This turn's own handoff (reply + handoff in one turn) does not silence it.
      if (!handedOff && agentStaysSilent(await readHandoffState(deps.db, input.conversationId))) {
        silenced = true;
        const outcome: ReplyOutcome = { error: "not sent: a human operator has this conversation now; say nothing more" };
        toolCalls.push({ message: text, outcome });
        return outcome;
      }
      const result = await sendToChat(deps, { ...input.delivery, text, dedupeKey: `reply:${envelope.id}` });
      let outcome: ReplyOutcome;
      if (result.ok) {
        sent = true;
        answerEnvelopeId = result.envelopeId;
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

  // The model may hand off beside (or instead of) replying; the handoff's own waiting message tells the user.
  const handoff = createHandoffTool({
    requestHandoff: async (reason) => {
      let outcome: HandoffOutcome;
      try {
        // The waiting message is threaded under the turn's envelope but not a native reply: a
        // `reply` in the same step replies to that message at the same moment (one thread root).
        await deps.requestHandoff(deps, { conversationId: input.conversationId, reason, by: envelope.to, replyTo: { envelopeId: envelope.id, message: null } });
        handedOff = true;
        outcome = { status: "handed off" };
      } catch (e) {
        if (!(e instanceof AppError)) log.warn("agent.handoff_failed", { envelopeId: envelope.id, error: (e as Error).message });
        outcome = { error: e instanceof AppError && e.code === "conflict" ? `not handed off: ${e.message}` : "the handoff failed; answer the user yourself" };
      }
      toolCalls.push({ tool: "handoff", message: reason, outcome });
      return outcome;
    },
  });

  const started = performance.now();
  let usage: Record<string, unknown> = {};
  let error: string | null = null;
  let malformed: string | null = null;
  let failure: unknown;
  try {
    const result = await generateText({
      model: deps.model.model,
      system: input.prompt.system,
      messages: input.prompt.messages,
      tools: { reply, handoff },
      // Once the reply is out (or a human has the conversation) there is nothing left to do:
      // no further model call. A failed send goes back to the model as the tool's error.
      stopWhen: [() => sent || handedOff || silenced, stepCountIs(3)],
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
    failure = e;
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
  if (error && !sent) throw failure instanceof RateLimitedError ? failure : new TurnError(`model call failed: ${error}`);
  const coalesced = input.coalesced ?? [];
  const burst = coalesced.length ? { burst: [...coalesced, envelope.id], turnEnvelopeId: envelope.id } : {};
  if (!sent && !handedOff && (deliveryFailure || malformed) && !outcomeUnknown) {
    // Nothing reached the user: the turn's envelope (the burst's latest) fails with the
    // reason, so the operator sees it and has one Retry; the burst's earlier ones point at it.
    if (coalesced.length) await finishEnvelope(deps.db, coalesced, { status: "done", metadata: { replied: false, ...burst } });
    await finishEnvelope(deps.db, envelope.id, { status: "failed", error: turnError!, metadata: { replied: false, ...burst } });
    return { sent };
  }
  // An unknown outcome is shown on the reply itself (kept in the history as possibly delivered).
  await finishEnvelope(deps.db, [...coalesced, envelope.id], {
    status: "done",
    metadata: {
      replied: outcomeUnknown ? "unknown" : sent,
      ...(answerEnvelopeId ? { answerEnvelopeId } : {}),
      ...(handedOff ? { handoff: { action: "request", via: "tool" } } : {}),
      ...(silenced ? { skipped: "handed off to a human" } : {}),
      ...burst,
      ...(error ? { modelError: error } : {}),
      ...(turnError ? { turnError } : {}),
    },
  });
  return { sent };
}

/**
 * One agent turn for a user's inbound message, or a burst of them (`earlier`:
 * the same session's messages that arrived before it and are still unanswered):
 * build the context (the message's session: main, or an interactive fork with the
 * main session's pending updates) with every message of the burst in it, let the
 * model decide whether to call `reply`, deliver at most once as a native reply to
 * the latest, and end every envelope of the burst.
 */
export async function runAgentTurn(deps: TurnDeps, envelopeId: number, earlier: { id: number; messageId: number | null; attempts?: number }[] = []): Promise<void> {
  const { db } = deps;
  const envelope = await findEnvelope(db, envelopeId);
  if (!envelope || envelope.status === "done" || envelope.status === "failed") return;
  const message = envelope.messageId ? await findMessage(db, envelope.messageId) : null;
  if (!message) {
    await finishEnvelope(db, [...earlier.map((e) => e.id), envelopeId], { status: "failed", error: "the envelope's message is missing" });
    return;
  }
  if (earlier.length && earlier.some((e) => (e.attempts ?? 1) > 1)) {
    // A crashed turn may have answered part of this burst already: those stay answered (at most once).
    const replied = await repliedEnvelopeIds(db, earlier.map((e) => e.id));
    const upTo = Math.max(0, ...replied);
    const answered = earlier.filter((e) => e.id <= upTo);
    if (answered.length) await finishEnvelope(db, answered.map((e) => e.id), { status: "done", metadata: { replied: true, recovered: true } });
    earlier = earlier.filter((e) => e.id > upTo);
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
  if (agentStaysSilent(message.conversation.handoffState)) {
    // A human was called or has the conversation: the agent says nothing until it is handed back.
    await finishEnvelope(db, [...earlier.map((e) => e.id), envelopeId], { status: "done", metadata: { skipped: "handed off to a human", handoff: { state: message.conversation.handoffState } } });
    return;
  }
  if ((envelope.metadata as { forkConflict?: boolean }).forkConflict) {
    // No nesting of forks: tell the user (the operator sees the flag on the envelope).
    await sendToChat(deps, { ...delivery, text: FORK_CONFLICT_NOTICE, dedupeKey: `reply:${envelope.id}` });
    await finishEnvelope(db, envelopeId, { status: "done", metadata: { replied: true, notice: "fork conflict" } });
    return;
  }
  const coalesced = earlier.map((e) => e.id);
  if (!deps.model) {
    await finishEnvelope(db, [...coalesced, envelopeId], { status: "done", metadata: { skipped: "no model configured" } });
    return;
  }
  const input = await loadContextInput(db, { current: message, settings });
  // Every message of the burst is in the prompt, even beyond the recency window, and
  // the gap note measures the silence before the burst began.
  const burst = await findStoredMessages(db, earlier.flatMap((e) => (e.messageId === null ? [] : [e.messageId])));
  const first = burst[0] ?? message;
  const previous = burst.length ? (input.recent.find((m) => m.id !== first.id && !burst.some((b) => b.id === m.id) && m.sentAt <= first.sentAt) ?? null) : input.previous;
  // The burst's messages are beyond what the loader timed: their headers count real time too.
  const previousSentAt = burst.length ? new Map([...input.previousSentAt, ...(await previousSentAtOf(db, burst))]) : input.previousSentAt;
  const context = buildContext({ current: message, ...input, recent: [...input.recent, ...burst], previous, previousSentAt, settings });
  const prompt = buildPrompt({
    context,
    currentId: message.id,
    conversation: message.conversation,
    settings,
    pendingUpdates: input.pendingUpdates,
    extraSystem: burstNote(burst.length + 1),
    handoffNote: handoffNoteFor(message.conversation, context.messages),
  });
  await executeTurn({ ...deps, model: deps.model }, { envelope, conversationId: message.conversationId, forkId: message.forkId, prompt, delivery, coalesced });
  if (message.forkId) await updateFork(db, message.forkId, { lastActivityAt: new Date() });
}

/** Several messages arrived together: the model answers them once. */
export function burstNote(count: number): string[] {
  if (count < 2) return [];
  return [`The user sent the last ${count} messages in a row before you answered. Answer them together, in one reply.`];
}

export type { Settings };
