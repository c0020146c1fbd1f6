import { generateText, stepCountIs } from "ai";
import { RateLimitedError } from "../agent/call-limits";
import type { ModelHandle } from "../agent/model";
import { buildPrompt, type Prompt } from "../agent/prompt";
import { createReplyTool, type ReplyOutcome } from "../agent/reply-tool";
import { createHandoffTool, type HandoffOutcome } from "../agent/handoff-tool";
import { buildContext } from "../context/build";
import { findStoredMessages, loadContextInput, previousSentAtOf } from "../db/context-input";
import { finishEnvelope, findEnvelope, repliedEnvelopeIds, type StoredEnvelope } from "../db/envelopes";
import { updateFork } from "../db/forks";
import { readHandoffState } from "../db/handoff";
import { findMessage } from "../db/messages";
import { saveTurn } from "../db/turns";
import type { EnvelopeMetadata } from "../envelope/metadata";
import { log } from "../log";
import type { Settings } from "../settings/schema";
import { getSettings } from "../settings/store";
import { AppError } from "../errors";
import { agentStaysSilent, handoffNoteFor, parseHandoffState } from "./handoff-rules";
import { sendToChat, type SendInput, type SendResult } from "./send-to-chat";
import type { TurnDeps } from "./turn-deps";

export type { TurnDeps } from "./turn-deps";

/** A model failure worth another attempt later (5xx, timeout, malformed output). */
export class TurnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TurnError";
  }
}

export const FORK_CONFLICT_NOTICE =
  "You're replying to an earlier fork of this chat while another fork is still open here. Let's finish the open one first — or ask for it to be closed.";

/**
 * How a turn ended, as recorded on its envelope(s); callers switch on `kind`.
 * - answered: the user got the answer (`recorded: false` when it is missing from the history);
 * - possibly_answered: the platform did not confirm the send (kept as possibly delivered, never resent);
 * - not_answered: nothing reached the user; the turn's envelope failed with `error` (one Retry);
 * - silent: the model chose not to reply;
 * - skipped: no turn ran (`reason`).
 */
export type TurnOutcome =
  | { kind: "answered"; answerEnvelopeId: number | null; recorded: boolean }
  | { kind: "possibly_answered"; error: string }
  | { kind: "not_answered"; error: string }
  | { kind: "silent" }
  | { kind: "skipped"; reason: string };

/** What a send means for the message it answers: the `replied` the envelope records. */
export function repliedOf(result: SendResult): NonNullable<EnvelopeMetadata["replied"]> {
  switch (result.kind) {
    case "sent":
    case "unrecorded":
      return true;
    case "duplicate":
      return result.earlier === "delivered" ? true : "unknown";
    case "failed":
      return result.outcome === "unknown" ? "unknown" : false;
  }
}

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
    envelope: StoredEnvelope;
    conversationId: number;
    forkId: number | null;
    prompt: Prompt;
    delivery: Omit<SendInput, "text" | "dedupeKey">;
    coalesced?: number[];
  },
): Promise<TurnOutcome> {
  const { envelope } = input;
  const toolCalls: ({ message: string; outcome: ReplyOutcome } | { tool: "handoff"; message: string; outcome: HandoffOutcome })[] = [];
  let sent = false;
  // Why no reply reached the user, when one was attempted (shown on the turn and the envelope).
  let deliveryFailure: string | null = null;
  let outcomeUnknown = false;
  // The reply went out but is missing from the history (shown on the turn).
  let unrecorded: string | null = null;
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
      switch (result.kind) {
        case "sent":
          sent = true;
          answerEnvelopeId = result.envelopeId;
          outcome = { status: "sent" };
          break;
        case "unrecorded":
          // The user has it: the turn is answered (never retried into a second copy).
          log.warn("agent.reply_unrecorded", { envelopeId: envelope.id, answerEnvelopeId: result.envelopeId, error: result.error });
          sent = true;
          answerEnvelopeId = result.envelopeId;
          unrecorded = result.error;
          outcome = { status: "sent" };
          break;
        case "duplicate":
          if (result.earlier === "delivered") {
            sent = true;
            outcome = { error: "you already answered this message" };
            break;
          }
          outcomeUnknown = true;
          deliveryFailure = result.error;
          outcome = { error: "the reply may not have reached the user (the platform did not confirm it); it was not sent again" };
          break;
        case "failed":
          log.warn("agent.reply_failed", { envelopeId: envelope.id, error: result.error, outcome: result.outcome });
          outcomeUnknown = result.outcome === "unknown";
          deliveryFailure = result.error;
          // Never "you already answered" unless it was: the model (and the operator) must not be told the user got it.
          outcome = {
            error: outcomeUnknown
              ? "the reply may not have reached the user (the platform did not confirm it); it was not sent again"
              : "failed to send reply",
          };
          break;
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
        await deps.requestHandoff(deps, {
          conversationId: input.conversationId,
          reason,
          by: envelope.to,
          replyTo: { envelopeId: envelope.id, message: null },
        });
        handedOff = true;
        outcome = { status: "handed off" };
      } catch (e) {
        if (!(e instanceof AppError)) log.warn("agent.handoff_failed", { envelopeId: envelope.id, error: (e as Error).message });
        outcome = {
          error:
            e instanceof AppError && e.code === "conflict"
              ? `not handed off: ${e.message}`
              : "the handoff failed; answer the user yourself",
        };
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
      // The gate times each call out from when it gets a slot; waiting for one is not the call's time.
      abortSignal: deps.model.callsTimeOut ? undefined : AbortSignal.timeout(deps.timeoutMs),
    });
    usage = { ...result.totalUsage };
    // Tool calls the SDK could not run (bad arguments, unknown tool): recorded, never silent.
    for (const part of result.steps.flatMap((step) => step.content)) {
      if (part.type !== "tool-error") continue;
      const reason = part.error instanceof Error ? part.error.message : String(part.error);
      malformed ??= `malformed tool call (${part.toolName}): ${reason.slice(0, 300)}`;
      toolCalls.push({
        message: JSON.stringify(part.input ?? null).slice(0, 2000),
        outcome: { error: `malformed call: ${reason.slice(0, 300)}` },
      });
    }
  } catch (e) {
    failure = e;
    error = (e as Error).message || String(e);
  }
  const turnError =
    error ??
    (!sent && deliveryFailure ? `reply not delivered: ${deliveryFailure}` : null) ??
    (!sent ? malformed : null) ??
    (unrecorded ? `reply ${unrecorded}` : null);
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
    return { kind: "not_answered", error: turnError! };
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
  if (outcomeUnknown) return { kind: "possibly_answered", error: deliveryFailure ?? "the platform did not confirm the reply" };
  return sent ? { kind: "answered", answerEnvelopeId, recorded: unrecorded === null } : { kind: "silent" };
}

/**
 * One agent turn for a user's inbound message, or a burst of them (`earlier`:
 * the same session's messages that arrived before it and are still unanswered):
 * build the context (the message's session: main, or an interactive fork with the
 * main session's pending updates) with every message of the burst in it, let the
 * model decide whether to call `reply`, deliver at most once as a native reply to
 * the latest, and end every envelope of the burst.
 */
export async function runAgentTurn(
  deps: TurnDeps,
  envelopeId: number,
  earlier: { id: number; messageId: number | null; attempts?: number }[] = [],
): Promise<TurnOutcome> {
  const { db } = deps;
  const envelope = await findEnvelope(db, envelopeId);
  if (!envelope || envelope.status === "done" || envelope.status === "failed")
    return { kind: "skipped", reason: "the envelope is already finished" };
  const message = envelope.messageId ? await findMessage(db, envelope.messageId) : null;
  if (!message) {
    const error = "the envelope's message is missing";
    await finishEnvelope(db, [...earlier.map((e) => e.id), envelopeId], { status: "failed", error });
    return { kind: "not_answered", error };
  }
  if (earlier.length && earlier.some((e) => (e.attempts ?? 1) > 1)) {
    // A crashed turn may have answered part of this burst already: those stay answered (at most once).
    const replied = await repliedEnvelopeIds(
      db,
      earlier.map((e) => e.id),
    );
    const upTo = Math.max(0, ...replied);
    const answered = earlier.filter((e) => e.id <= upTo);
    if (answered.length)
      await finishEnvelope(
        db,
        answered.map((e) => e.id),
        { status: "done", metadata: { replied: true, recovered: true } },
      );
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
    platform: envelope.metadata.platform,
  };
  if (agentStaysSilent(message.conversation.handoffState)) {
    // A human was called or has the conversation: the agent says nothing until it is handed back.
    const reason = "handed off to a human";
    await finishEnvelope(db, [...earlier.map((e) => e.id), envelopeId], {
      status: "done",
      metadata: { skipped: reason, handoff: { state: parseHandoffState(message.conversation.handoffState) } },
    });
    return { kind: "skipped", reason };
  }
  if (envelope.metadata.forkConflict) return sendForkConflictNotice(deps, envelope.id, delivery);
  const coalesced = earlier.map((e) => e.id);
  if (!deps.model) {
    const reason = "no model configured";
    await finishEnvelope(db, [...coalesced, envelopeId], { status: "done", metadata: { skipped: reason } });
    return { kind: "skipped", reason };
  }
  const input = await loadContextInput(db, { current: message, settings });
  // Every message of the burst is in the prompt, even beyond the recency window, and
  // the gap note measures the silence before the burst began.
  const burst = await findStoredMessages(
    db,
    earlier.flatMap((e) => (e.messageId === null ? [] : [e.messageId])),
  );
  const first = burst[0] ?? message;
  const previous = burst.length
    ? (input.recent.find((m) => m.id !== first.id && !burst.some((b) => b.id === m.id) && m.sentAt <= first.sentAt) ?? null)
    : input.previous;
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
  const outcome = await executeTurn(
    { ...deps, model: deps.model },
    { envelope, conversationId: message.conversationId, forkId: message.forkId, prompt, delivery, coalesced },
  );
  if (message.forkId) await updateFork(db, message.forkId, { lastActivityAt: new Date() });
  return outcome;
}

/**
 * No nesting of forks: the user is told instead of a model turn (the operator sees
 * the flag on the envelope). The envelope records what became of the notice: a
 * refused one fails it with the reason (one Retry sends it again), one the platform
 * did not confirm is marked "unknown".
 */
async function sendForkConflictNotice(
  deps: TurnDeps,
  envelopeId: number,
  delivery: Omit<SendInput, "text" | "dedupeKey">,
): Promise<TurnOutcome> {
  const result = await sendToChat(deps, { ...delivery, text: FORK_CONFLICT_NOTICE, dedupeKey: `reply:${envelopeId}` });
  const notice = "fork conflict";
  switch (result.kind) {
    case "sent":
    case "unrecorded":
      await finishEnvelope(deps.db, envelopeId, {
        status: "done",
        metadata: { replied: true, notice, answerEnvelopeId: result.envelopeId },
      });
      return { kind: "answered", answerEnvelopeId: result.envelopeId, recorded: result.kind === "sent" };
    case "duplicate":
      await finishEnvelope(deps.db, envelopeId, { status: "done", metadata: { replied: repliedOf(result), notice } });
      return result.earlier === "delivered"
        ? { kind: "answered", answerEnvelopeId: result.envelopeId, recorded: true }
        : { kind: "possibly_answered", error: result.error };
    case "failed": {
      if (result.outcome === "unknown") {
        await finishEnvelope(deps.db, envelopeId, { status: "done", metadata: { replied: "unknown", notice } });
        return { kind: "possibly_answered", error: result.error };
      }
      const error = `fork conflict notice not delivered: ${result.error}`;
      await finishEnvelope(deps.db, envelopeId, { status: "failed", error, metadata: { replied: false, notice } });
      return { kind: "not_answered", error };
    }
  }
}

/** Several messages arrived together: the model answers them once. */
export function burstNote(count: number): string[] {
  if (count < 2) return [];
  return [`The user sent the last ${count} messages in a row before you answered. Answer them together, in one reply.`];
}

export type { Settings };
