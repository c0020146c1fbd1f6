import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, parsePartialJson, isStepCount, type LanguageModel } from "ai";
import { generateFromStream } from "../agent/generate-from-stream";
import { RateLimitedError } from "../agent/call-limits";
import type { ModelHandle } from "../agent/model";
import { contextNeeds } from "../context/assemble";
import type { Prompt } from "../context/prompt";
import { providerSeesImages } from "../context/media";
import { turnPrompt } from "../context/turn-prompt";
import { withImageBytes } from "../media/model-images";
import { prepareTurnMedia } from "./turn-media";
import { loadContextFacts } from "../context/load-facts";
import { repliedEnvelopeIds, type StoredEnvelope } from "../db/envelopes";
import { findEnvelopeWithMessage } from "../db/turn-start";
import { endEnvelope, endEnvelopeWithTurn } from "./end-envelope";
import { updateFork } from "../db/forks";
import type { MessageWithConversation } from "../db/messages";
import { saveTurn, type TurnRecord } from "../db/turns";
import type { ActivityTarget, ChatType } from "../channels/types";
import { modelTelemetry } from "../tracing/hooks";
import { turnUsageColumns } from "../usage/turn-usage";
import { draftsPossible, startAnswerDraft, type AnswerDraft } from "./answer-draft";
import { countDraftShed } from "../metrics/record";
import { startChatActivity } from "./chat-activity";
import type { EnvelopeMetadata } from "../db/envelope-metadata";
import type { Settings } from "../settings/schema";
import { settingsInForce, type SettingsInForce } from "../settings/reader";
import { agentStaysSilent, parseHandoffState } from "./handoff-rules";
import { sendToChat, type SendInput, type SendResult } from "./send-to-chat";
import { createHandoffTool } from "./handoff-tool";
import { createReplyTool, type ReplyResult } from "./reply-tool";
import type { ToolCallRecord, TurnDeps } from "./turn-deps";

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

/** What one turn runs with: its envelope, where its reply goes, and the prompt. */
export type TurnInput = {
  envelope: StoredEnvelope;
  conversationId: number;
  forkId: number | null;
  prompt: Prompt;
  /** The settings the turn runs with, read once when it started (lib/settings/reader.ts) and passed down. */
  settings: SettingsInForce;
  delivery: Omit<SendInput, "text" | "dedupeKey">;
  /** A burst's earlier envelopes: they end with this one, recording the one answer. */
  coalesced?: number[];
  /** Shows the answer as the model writes it (the call is then streamed). */
  draft?: AnswerDraft | null;
  /** Runs before anything goes to the chat (the reply, a handoff's waiting message): stops the typing indicator. */
  beforeSend?: () => Promise<void>;
};

/** What the model call left behind, read from the tools' typed results. */
type ModelRun = {
  reply: ReplyResult | null;
  handedOff: boolean;
  calls: ToolCallRecord[];
  usage: Record<string, unknown>;
  latencyMs: number;
  /** The model call failed (`failure` is what it threw). */
  error: string | null;
  failure?: unknown;
  /** A tool call the SDK could not run (bad arguments, unknown tool). */
  malformed: string | null;
};

/**
 * Runs the model once with the `reply` and `handoff` tools bound to this turn:
 * at most one message goes out (per-turn guard, and a dedupe key across retries),
 * the turn is recorded for the prompt inspector. Throws TurnError when the model
 * failed before anything was sent, so the worker retries with backoff
 * (RateLimitedError when the provider asked us to wait). A burst's earlier
 * envelopes (`coalesced`) end with the latest one, all recording the one answer.
 */
export async function executeTurn(deps: TurnDeps & { model: ModelHandle }, input: TurnInput): Promise<TurnOutcome> {
  const run = await callModel(deps, input);
  const sent = run.reply?.kind === "sent";
  // Another worker may be running this turn now: record nothing (what it writes counts). A sent reply is still recorded.
  if (!sent) deps.lease?.throwIfAborted();
  const failed = run.reply?.kind === "not_delivered" ? run.reply : null;
  const unrecorded = run.reply?.kind === "sent" ? run.reply.unrecorded : null;
  const turnError =
    run.error ??
    (!sent && failed ? `reply not delivered: ${failed.error}` : null) ??
    (!sent ? run.malformed : null) ??
    (unrecorded ? `reply ${unrecorded}` : null);
  const record: TurnRecord = {
    envelopeId: input.envelope.id,
    conversationId: input.conversationId,
    forkId: input.forkId,
    model: `${deps.model.provider}:${deps.model.modelId}`,
    system: input.prompt.system,
    prompt: input.prompt.messages,
    toolCalls: run.calls,
    usage: run.usage,
    latencyMs: run.latencyMs,
    error: turnError,
    // Priced by the global table, as the usage page sums it (a bot's override of it does not apply).
    ...turnUsageColumns(input.settings.global.modelPrices, deps.model, run.usage),
  };
  // A failure after the reply went out ends the turn: the user has the answer.
  if (run.error && !sent) {
    await saveTurn(deps.db, record);
    throw run.failure instanceof RateLimitedError ? run.failure : new TurnError(`model call failed: ${run.error}`);
  }
  return finishTurn(deps, input, run, turnError, record);
}

/** The model call itself, with the turn's tools; it stops once the reply went out or a human has the conversation. */
async function callModel(deps: TurnDeps & { model: ModelHandle }, input: TurnInput): Promise<ModelRun> {
  const { draft } = input;
  const turn = {
    deps,
    envelope: input.envelope,
    conversationId: input.conversationId,
    settings: input.settings,
    calls: [] as ToolCallRecord[],
    beforeSend: async () => {
      await Promise.all([draft?.stop(), input.beforeSend?.()]);
    },
    draftsShown: () => draft?.shown ?? 0,
  };
  // The model may hand off beside (or instead of) replying; the handoff's own waiting message tells the user.
  const handoff = createHandoffTool(turn);
  const reply = createReplyTool({ ...turn, delivery: input.delivery, handedOff: handoff.handedOff });
  const started = performance.now();
  const run: ModelRun = { reply: null, handedOff: false, calls: turn.calls, usage: {}, latencyMs: 0, error: null, malformed: null };
  try {
    // The turn is recorded with references to its pictures; the model gets their re-encoded bytes.
    const prompt = await withImageBytes(deps.db, input.prompt);
    const call = {
      // With a draft the provider streams and the reply's text goes to the draft as it grows.
      model: draft ? draftingModel(deps.model.model, draft) : deps.model.model,
      instructions: prompt.system,
      messages: prompt.messages,
      tools: { reply: reply.tool, handoff: handoff.tool },
      // Once the reply is out (or a human has the conversation) there is nothing left to do:
      // no further model call. A failed send goes back to the model as the tool's error.
      stopWhen: [() => reply.result()?.kind === "sent" || reply.result()?.kind === "silenced" || handoff.handedOff(), isStepCount(3)],
      maxRetries: 0,
      // The gate times each call out from when it gets a slot; waiting for one is not the call's time.
      abortSignal: anySignal(deps.model.callsTimeOut ? undefined : AbortSignal.timeout(deps.timeoutMs), deps.lease),
      telemetry: modelTelemetry(),
    };
    const result = await generateText(call);
    run.usage = { ...result.usage };
    // Tool calls the SDK could not run (bad arguments, unknown tool): recorded, never silent.
    for (const part of result.steps.flatMap((step) => step.content)) {
      if (part.type !== "tool-error") continue;
      const reason = part.error instanceof Error ? part.error.message : String(part.error);
      run.malformed ??= `malformed tool call (${part.toolName}): ${reason.slice(0, 300)}`;
      turn.calls.push({
        message: JSON.stringify(part.input ?? null).slice(0, 2000),
        outcome: { error: `malformed call: ${reason.slice(0, 300)}` },
      });
    }
  } catch (e) {
    run.failure = e;
    run.error = (e as Error).message || String(e);
  } finally {
    await draft?.stop();
  }
  run.latencyMs = Math.round(performance.now() - started);
  run.reply = reply.result();
  run.handedOff = handoff.handedOff();
  return run;
}

/** Aborts when any of the given signals does (none: undefined). */
function anySignal(...signals: (AbortSignal | undefined)[]) {
  const given = signals.filter((s) => s !== undefined);
  return given.length > 1 ? AbortSignal.any(given) : given[0];
}

/**
 * The model with its calls streamed: the `reply` tool's `message` argument goes to
 * the draft as it grows, and `generateText` gets each step whole (usage, steps and
 * failures as without a draft; lib/agent/generate-from-stream.ts says why not
 * `streamText`).
 */
function draftingModel(model: LanguageModel, draft: AnswerDraft): LanguageModel {
  if (typeof model === "string") return model;
  const replyInputs = new Map<string, string>();
  return generateFromStream(model as LanguageModelV4, async (part: LanguageModelV4StreamPart) => {
    if (part.type === "tool-input-start") {
      if (part.toolName === "reply") replyInputs.set(part.id, "");
    } else if (part.type === "tool-input-delta" && replyInputs.has(part.id)) {
      const json = replyInputs.get(part.id)! + part.delta;
      replyInputs.set(part.id, json);
      const { value } = await parsePartialJson(json);
      const message = (value as { message?: unknown } | undefined)?.message;
      if (typeof message === "string") draft.update(message);
    }
  });
}

/** Ends the turn's envelope(s) with what the model did, and says how the turn ended. */
async function finishTurn(
  deps: TurnDeps,
  input: TurnInput,
  run: ModelRun,
  turnError: string | null,
  record: TurnRecord,
): Promise<TurnOutcome> {
  const { envelope } = input;
  const reply = run.reply;
  const sent = reply?.kind === "sent";
  const outcomeUnknown = reply?.kind === "not_delivered" && reply.outcome === "unknown";
  const deliveryFailure = reply?.kind === "not_delivered" ? reply.error : null;
  const answerEnvelopeId = reply?.kind === "sent" ? reply.answerEnvelopeId : null;
  const coalesced = input.coalesced ?? [];
  const burst = coalesced.length ? { burst: [...coalesced, envelope.id], turnEnvelopeId: envelope.id } : {};
  if (!sent && !run.handedOff && (deliveryFailure || run.malformed) && !outcomeUnknown) {
    // Nothing reached the user: the turn's envelope (the burst's latest) fails with the
    // reason, so the operator sees it and has one Retry; the burst's earlier ones point at it.
    if (coalesced.length)
      await endEnvelope(deps.db, coalesced, { status: "done", metadata: { replied: false, ...burst } }, input.envelope.conversationId);
    await endEnvelopeWithTurn(deps.db, record, envelope.id, {
      status: "failed",
      error: turnError!,
      metadata: { replied: false, ...burst },
    });
    return { kind: "not_answered", error: turnError! };
  }
  // An unknown outcome is shown on the reply itself (kept in the history as possibly delivered).
  await endEnvelopeWithTurn(deps.db, record, [...coalesced, envelope.id], {
    status: "done",
    metadata: {
      replied: outcomeUnknown ? "unknown" : sent,
      ...(answerEnvelopeId ? { answerEnvelopeId } : {}),
      ...(run.handedOff ? { handoff: { action: "request", via: "tool" } } : {}),
      ...(reply?.kind === "silenced" ? { skipped: "handed off to a human" } : {}),
      ...burst,
      ...(run.error ? { modelError: run.error } : {}),
      ...(turnError ? { turnError } : {}),
    },
  });
  if (outcomeUnknown) return { kind: "possibly_answered", error: deliveryFailure ?? "the platform did not confirm the reply" };
  return sent ? { kind: "answered", answerEnvelopeId, recorded: reply.unrecorded === null } : { kind: "silent" };
}

/** A burst's earlier envelopes (oldest first) and the messages they carry. */
type Earlier = { id: number; messageId: number | null; attempts?: number }[];

/**
 * One agent turn for a user's inbound message, or a burst of them (`earlier`:
 * the same session's messages that arrived before it and are still unanswered):
 * build the context (the message's session: main, or an interactive fork with the
 * main session's pending updates) with every message of the burst in it, let the
 * model decide whether to call `reply`, deliver at most once as a native reply to
 * the latest, and end every envelope of the burst.
 */
export async function runAgentTurn(deps: TurnDeps, envelopeId: number, earlier: Earlier = []): Promise<TurnOutcome> {
  const { db } = deps;
  const opened = await openTurn(deps, envelopeId, earlier);
  if ("outcome" in opened) return opened.outcome;
  const { envelope, message, inForce, delivery } = opened;
  const { settings } = inForce;
  const coalesced = opened.earlier.map((e) => e.id);
  // Each bot its own agent: its model when it has one, else the deployment's.
  const model = (inForce.bot ? deps.modelFor?.(inForce.bot) : undefined) ?? deps.model;
  if (!model) {
    const reason = "no model configured";
    await endEnvelope(db, [...coalesced, envelopeId], { status: "done", metadata: { skipped: reason } }, envelope.conversationId);
    return { kind: "skipped", reason };
  }
  // The user sees the bot working from now until the answer goes out (never after it).
  const channel = deps.channels[message.conversation.channel];
  const target: ActivityTarget = {
    chatId: message.conversation.platformChatId,
    chatType: message.conversation.type as ChatType,
    ...(message.platformTopicId ? { topicId: message.platformTopicId } : {}),
    ...(envelope.metadata.platform ? { platform: envelope.metadata.platform } : {}),
  };
  const activity = settings.typingIndicator ? startChatActivity(channel, target) : null;
  try {
    const loaded = await loadContextFacts(db, {
      conversation: message.conversation,
      current: message,
      burstMessageIds: opened.earlier.flatMap((e) => (e.messageId === null ? [] : [e.messageId])),
      needs: contextNeeds(settings),
    });
    // Pictures and voice notes: a short wait for the turn's own still being fetched, transcripts made once.
    const modelSeesImages = settings.modelSeesImages ?? providerSeesImages(model.provider);
    const facts = await prepareTurnMedia(db, loaded, {
      seesImages: modelSeesImages,
      transcriber: deps.transcriber ?? null,
      timeoutMs: deps.timeoutMs,
    });
    const prompt = turnPrompt(facts, { ...settings, modelSeesImages });
    // Decided once, before the call: a turn is streamed for drafts from its start or not at all.
    const wantsDraft = settings.streamDrafts && draftsPossible(channel, target);
    const shed = wantsDraft && deps.draftsShed?.() === true;
    if (shed) countDraftShed();
    const draft = wantsDraft && !shed ? startAnswerDraft(channel, target, draftIdOf(envelope.id)) : null;
    const outcome = await executeTurn(
      { ...deps, model },
      {
        envelope,
        conversationId: message.conversationId,
        forkId: message.forkId,
        prompt,
        settings: inForce,
        delivery,
        coalesced,
        draft,
        beforeSend: activity?.stop,
      },
    );
    if (message.forkId) await updateFork(db, message.forkId, { lastActivityAt: new Date() });
    return outcome;
  } finally {
    await activity?.stop();
  }
}

/** A Telegram draft id: non-zero, within 32 bits, one per turn. */
function draftIdOf(envelopeId: number): number {
  return (envelopeId % 2_000_000_000) + 1;
}

/**
 * A user's reply to a fork while another fork is open here (ingest flagged it):
 * no nesting of forks, so the user is told instead of a model turn.
 */
export async function runForkConflictNotice(deps: TurnDeps, envelopeId: number): Promise<TurnOutcome> {
  const opened = await openTurn(deps, envelopeId, []);
  if ("outcome" in opened) return opened.outcome;
  return sendForkConflictNotice(deps, envelopeId, opened.delivery);
}

/**
 * What every turn for a user's message does first: the envelope and its message
 * read, a crashed turn's already-answered part of the burst ended (at most once),
 * and nothing more while a human has the conversation. Either how the turn
 * already ended, or what it runs with.
 */
async function openTurn(
  deps: TurnDeps,
  envelopeId: number,
  earlier: Earlier,
): Promise<
  | { outcome: TurnOutcome }
  | {
      envelope: StoredEnvelope;
      message: MessageWithConversation;
      inForce: SettingsInForce;
      delivery: Omit<SendInput, "text" | "dedupeKey">;
      earlier: Earlier;
    }
> {
  const { db } = deps;
  const { envelope, message } = await findEnvelopeWithMessage(db, envelopeId);
  if (!envelope || envelope.status === "done" || envelope.status === "failed")
    return { outcome: { kind: "skipped", reason: "the envelope is already finished" } };
  if (!message) {
    const error = "the envelope's message is missing";
    await endEnvelope(db, [...earlier.map((e) => e.id), envelopeId], { status: "failed", error }, envelope.conversationId);
    return { outcome: { kind: "not_answered", error } };
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
      await endEnvelope(
        db,
        answered.map((e) => e.id),
        { status: "done", metadata: { replied: true, recovered: true } },
        envelope.conversationId,
      );
    earlier = earlier.filter((e) => e.id > upTo);
  }
  if (agentStaysSilent(message.conversation.handoffState)) {
    // A human was called or has the conversation: the agent says nothing until it is handed back.
    const reason = "handed off to a human";
    await endEnvelope(
      db,
      [...earlier.map((e) => e.id), envelopeId],
      {
        status: "done",
        metadata: { skipped: reason, handoff: { state: parseHandoffState(message.conversation.handoffState) } },
      },
      envelope.conversationId,
    );
    return { outcome: { kind: "skipped", reason } };
  }
  // The turn's one read of the settings (the bot's overrides and model with them): passed down from here.
  const inForce = await settingsInForce(db, { adapter: message.conversation.channel });
  const delivery = {
    from: envelope.to,
    senderKind: "agent" as const,
    senderName: inForce.settings.agentName,
    conversation: message.conversation,
    replyTo: message,
    replyToEnvelopeId: envelope.id,
    forkId: message.forkId,
    platform: envelope.metadata.platform,
  };
  return { envelope, message, inForce, delivery, earlier };
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
      await endEnvelope(
        deps.db,
        envelopeId,
        {
          status: "done",
          metadata: { replied: true, notice, answerEnvelopeId: result.envelopeId },
        },
        delivery.conversation.id,
      );
      return { kind: "answered", answerEnvelopeId: result.envelopeId, recorded: result.kind === "sent" };
    case "duplicate":
      await endEnvelope(
        deps.db,
        envelopeId,
        { status: "done", metadata: { replied: repliedOf(result), notice } },
        delivery.conversation.id,
      );
      return result.earlier === "delivered"
        ? { kind: "answered", answerEnvelopeId: result.envelopeId, recorded: true }
        : { kind: "possibly_answered", error: result.error };
    case "failed": {
      if (result.outcome === "unknown") {
        await endEnvelope(deps.db, envelopeId, { status: "done", metadata: { replied: "unknown", notice } }, delivery.conversation.id);
        return { kind: "possibly_answered", error: result.error };
      }
      const error = `fork conflict notice not delivered: ${result.error}`;
      await endEnvelope(deps.db, envelopeId, { status: "failed", error, metadata: { replied: false, notice } }, delivery.conversation.id);
      return { kind: "not_answered", error };
    }
  }
}

export type { Settings };
