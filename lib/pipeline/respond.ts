import { generateText, stepCountIs } from "ai";
import { RateLimitedError } from "../agent/call-limits";
import type { ModelHandle } from "../agent/model";
import { buildPrompt, type Prompt } from "../agent/prompt";
import { createReplyTool, type ReplyOutcome } from "../agent/reply-tool";
import type { ChannelAdapter } from "../channels/types";
import { buildContext } from "../context/build";
import type { Db } from "../db/client";
import { findStoredMessages, loadContextInput } from "../db/context";
import { finishEnvelope, findEnvelope, repliedEnvelopeIds } from "../db/envelopes";
import { updateFork } from "../db/forks";
import { findMessage } from "../db/messages";
import { saveTurn } from "../db/turns";
import { formatTime } from "../envelope/format";
import { sanitizeInline, sanitizeName } from "../envelope/sanitize";
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
    delivery: Omit<DeliverInput, "text" | "dedupeKey">;
    coalesced?: number[];
  },
): Promise<{ sent: boolean }> {
  const { envelope } = input;
  const toolCalls: { message: string; outcome: ReplyOutcome }[] = [];
  let sent = false;
  let answerEnvelopeId: number | null = null;
  const reply = createReplyTool({
    sendReply: async (text) => {
      const result = await deliverToChannel(deps, { ...input.delivery, text, dedupeKey: `reply:${envelope.id}` });
      let outcome: ReplyOutcome;
      if (result.ok) {
        sent = true;
        answerEnvelopeId = result.envelopeId;
        outcome = { status: "sent" };
      } else if (result.duplicate) {
        sent = true;
        outcome = { error: "you already answered this message" };
      } else {
        log.warn("agent.reply_failed", { envelopeId: envelope.id, error: result.error });
        outcome = { error: result.error === "failed to save message" ? "failed to save message" : "failed to send reply" };
      }
      toolCalls.push({ message: text, outcome });
      return outcome;
    },
  });

  const started = performance.now();
  let usage: Record<string, unknown> = {};
  let error: string | null = null;
  let failure: unknown;
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
  } catch (e) {
    failure = e;
    error = (e as Error).message || String(e);
  }
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
    error,
  });
  // A failure after the reply went out ends the turn: the user has the answer.
  if (error && !sent) throw failure instanceof RateLimitedError ? failure : new TurnError(`model call failed: ${error}`);
  const burst = input.coalesced?.length ? { burst: [...input.coalesced, envelope.id], turnEnvelopeId: envelope.id } : {};
  await finishEnvelope(deps.db, [...(input.coalesced ?? []), envelope.id], {
    status: "done",
    metadata: { replied: sent, ...(answerEnvelopeId ? { answerEnvelopeId } : {}), ...burst, ...(error ? { modelError: error } : {}) },
  });
  return { sent };
}

/** The pending main-session updates an interactive fork's prompt is given. */
export function pendingUpdatesNote(updates: { senderKind: string; senderName: string | null; text: string; sentAt: Date }[]): string[] {
  if (updates.length === 0) return [];
  const lines = updates.map((u) => `- ${formatTime(u.sentAt)} ${u.senderKind === "user" ? (sanitizeName(u.senderName) ?? "unknown") : "agent"}: "${sanitizeInline(u.text, 200)}"`);
  return [
    "You are continuing an earlier side thread (a fork of this conversation) because the user replied to it. Pending updates from the main conversation since this thread began, for context:\n" +
      lines.join("\n"),
  ];
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
  if ((envelope.metadata as { forkConflict?: boolean }).forkConflict) {
    // No nesting of forks: tell the user (the operator sees the flag on the envelope).
    await deliverToChannel(deps, { ...delivery, text: FORK_CONFLICT_NOTICE, dedupeKey: `reply:${envelope.id}` });
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
  const context = buildContext({ current: message, ...input, recent: [...input.recent, ...burst], previous, settings });
  const prompt = buildPrompt({
    context,
    currentId: message.id,
    conversation: message.conversation,
    settings,
    extraSystem: [...pendingUpdatesNote(input.pendingUpdates), ...burstNote(burst.length + 1)],
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
