import { generateText, isStepCount, type ModelMessage } from "ai";
import type { ModelHandle } from "../agent/model";
import { contextNeeds } from "../context/assemble";
import type { ContextFacts } from "../db/context-facts";
import { withAgentInstructions, type Prompt } from "../context/prompt";
import { turnPrompt } from "../context/turn-prompt";
import type { Database } from "../db/database";
import { loadContextFacts } from "../context/load-facts";
import { findMessage } from "../db/messages";
import { createReplay, finishReplay, type ReplayOutput } from "../db/replays";
import { reserveReplayQuota, type ReplayAsker } from "./quota";
import { AppError, notFound } from "../errors";
import { log } from "../log";
import { settingsFor, settingsInForce } from "../settings/reader";
import type { Settings } from "../settings/schema";
import { providerSeesImages } from "../context/media";
import { withImageBytes } from "../media/model-images";
import { modelTelemetry } from "../tracing/hooks";
import { turnUsageColumns } from "../usage/turn-usage";
import { type Captured, captureTools } from "./capture-tools";
import { modelName, resolveReplayModel, type ReplayModels } from "./models";
import { storedVariant, type ReplayRequest } from "./variant";

/** What a replay needs: the database, its models, and how long one model call may take. */
export type ReplayDeps = { db: Database; models: ReplayModels; timeoutMs: number };

/** A replay ready to run: its row, the model and the prompt. */
export type PreparedReplay = { id: number; model: ModelHandle; prompt: Prompt };

export type StoredTurn = NonNullable<Awaited<ReturnType<typeof findTurnForReplay>>>;

/** A turn with what a replay (or a regenerate) rebuilds it from: its envelope and its conversation's channel. */
export function findTurnForReplay(db: Database, id: number) {
  return db.prisma.turn.findUnique({
    where: { id },
    include: {
      envelope: { select: { id: true, messageId: true, metadata: true, to: true } },
      conversation: { select: { channel: true } },
    },
  });
}

/**
 * Checks a replay of one turn and stores it as running: unknown turn 404, a model
 * that is gone 409, a turn that cannot be rebuilt 409. `runId`: part of a dataset run;
 * `createdBy`: the operator who asked (for a run's replays, who started the run).
 */
export async function prepareReplay(
  deps: ReplayDeps,
  turnId: number,
  request: ReplayRequest,
  createdBy: string,
  runId: number | null = null,
): Promise<PreparedReplay> {
  const turn = await findTurnForReplay(deps.db, turnId);
  if (!turn) throw notFound("turn");
  // The settings the turn's bot runs with (its overrides, instructions and model), read once.
  const inForce = await settingsInForce(deps.db, { adapter: turn.conversation.channel });
  // A bot with its own model ran its turns with it: that is the turn's model to replay with.
  const botModel = inForce.bot ? deps.models.ofBot?.(inForce.bot) : undefined;
  const model = resolveReplayModel(deps.models, request.variant.model, turn.model, botModel);
  const prompt =
    request.mode === "frozen" ? frozenPrompt(turn, request) : await rebuiltPrompt(deps.db, turn, request, model.provider, inForce.settings);
  const { id } = await createReplay(deps.db, {
    turnId: turn.id,
    conversationId: turn.conversationId,
    runId,
    mode: request.mode,
    variant: storedVariant(request.variant),
    model: modelName(model),
    system: prompt.system,
    prompt: prompt.messages,
    createdBy,
  });
  return { id, model, prompt };
}

/** frozen: the messages exactly as recorded; only the instructions (and the model) change. */
function frozenPrompt(turn: StoredTurn, request: ReplayRequest): Prompt {
  const messages = turn.prompt as unknown as ModelMessage[];
  const instructions = request.variant.instructions;
  if (instructions === undefined) return { system: turn.system, messages };
  const system = withAgentInstructions(turn.system, instructions);
  if (system === null)
    throw new AppError("conflict", "this turn's recorded system prompt has no instructions paragraph to replace: use rebuild");
  return { system, messages };
}

/**
 * rebuild: the turn's context assembled again from the database, by the same loader
 * and pure assembly as a live turn (so the same sanitizer), under the current
 * settings with the variant's over them. Nothing stored after the turn's message
 * takes part: the loader reads up to it, and what it reads around a reply target
 * is cut there too.
 */
export async function rebuiltPrompt(
  db: Database,
  turn: StoredTurn,
  request: ReplayRequest,
  provider: string,
  current: Settings,
): Promise<Prompt> {
  const messageId = turn.envelope.messageId;
  const message = messageId ? await findMessage(db, messageId) : null;
  if (!message)
    throw new AppError(
      "conflict",
      "this turn answered no stored message (a background task, or its message is gone): only a frozen replay is possible",
    );
  // The settings the turn's bot runs with, the variant's over them.
  const merged = {
    ...current,
    ...request.variant.settings,
    ...(request.variant.instructions !== undefined ? { agentInstructions: request.variant.instructions } : {}),
  };
  const settings = { ...merged, modelSeesImages: merged.modelSeesImages ?? providerSeesImages(provider) };
  const burstMessageIds = await burstMessages(db, turn.envelope.metadata, turn.envelope.id);
  const facts = await loadContextFacts(db, {
    conversation: message.conversation,
    current: message,
    burstMessageIds,
    needs: contextNeeds(settings),
  });
  return turnPrompt(asOf(facts, message.id), settings);
}

/** The facts without any message stored after `lastId` (ids grow in the order messages are stored). */
export function asOf(facts: ContextFacts, lastId: number): ContextFacts {
  const before = <T extends { id: number }>(list: T[]) => list.filter((m) => m.id <= lastId);
  return {
    ...facts,
    session: before(facts.session),
    forkBase: before(facts.forkBase),
    target: facts.target && facts.target.id <= lastId ? facts.target : null,
    targetNeighbours: before(facts.targetNeighbours),
    chain: before(facts.chain),
    burst: before(facts.burst),
  };
}

/** A burst's earlier messages: the envelopes its turn answered together (metadata `burst`), but the turn's own. */
async function burstMessages(db: Database, metadata: unknown, ownEnvelopeId: number): Promise<number[]> {
  const burst = (metadata as { burst?: unknown } | null)?.burst;
  if (!Array.isArray(burst)) return [];
  const ids = burst.filter((id): id is number => Number.isInteger(id) && id !== ownEnvelopeId);
  if (!ids.length) return [];
  const rows = await db.prisma.envelope.findMany({ where: { id: { in: ids } }, select: { messageId: true }, orderBy: { id: "asc" } });
  return rows.flatMap((r) => (r.messageId === null ? [] : [r.messageId]));
}

/** What a captured model call left: the captured reply and handoff, its usage, its time, and the first failure. */
export type CapturedRun = { captured: Captured; usage: Record<string, unknown>; latencyMs: number; error: string | null };

/**
 * The model with the turn's tools, captured (lib/replay/capture-tools.ts): nothing is
 * sent. The handle's model is behind its provider gate (lib/agent/call-limits.ts), as a
 * live turn's. A failure is `error`, never thrown.
 */
export async function runCaptured(deps: Pick<ReplayDeps, "db" | "timeoutMs">, model: ModelHandle, prompt: Prompt): Promise<CapturedRun> {
  const { tools, captured } = captureTools();
  const started = performance.now();
  let usage: Record<string, unknown> = {};
  let error: string | null = null;
  try {
    const result = await generateText({
      model: model.model,
      instructions: prompt.system,
      // Pictures as the live turn sends them: the recorded references replaced by the re-encoded bytes.
      messages: (await withImageBytes(deps.db, prompt)).messages,
      tools,
      stopWhen: [() => captured.reply !== null || captured.handoff !== null, isStepCount(3)],
      maxRetries: 0,
      abortSignal: model.callsTimeOut ? undefined : AbortSignal.timeout(deps.timeoutMs),
      telemetry: modelTelemetry(),
    });
    usage = { ...result.usage };
    for (const part of result.steps.flatMap((step) => step.content)) {
      if (part.type !== "tool-error") continue;
      const reason = part.error instanceof Error ? part.error.message : String(part.error);
      error ??= `malformed tool call (${part.toolName}): ${reason.slice(0, 300)}`;
    }
  } catch (e) {
    error = `model call failed: ${((e as Error).message || String(e)).slice(0, 500)}`;
  }
  return { captured, usage, error, latencyMs: Math.round(performance.now() - started) };
}

/**
 * Runs a prepared replay (runCaptured); stores what it did, its usage and cost. A failure
 * is the replay's `failed` status with the reason, never thrown.
 */
export async function runReplay(deps: ReplayDeps, prepared: PreparedReplay): Promise<void> {
  const { captured, usage, error, latencyMs } = await runCaptured(deps, prepared.model, prepared.prompt);
  if (error) log.warn("replay.failed", { replayId: prepared.id, error });
  const output: ReplayOutput = {
    replied: captured.reply !== null,
    text: captured.reply,
    handoff: captured.handoff,
    toolCalls: captured.calls,
  };
  const failed = error !== null && captured.reply === null && captured.handoff === null;
  await finishReplay(deps.db, prepared.id, {
    status: failed ? "failed" : "done",
    error,
    output,
    usage,
    latencyMs,
    // Priced by the global table as it is now, as a live turn's cost.
    ...turnUsageColumns((await settingsFor(deps.db)).modelPrices, prepared.model, usage),
  });
}

/**
 * One replay, start to end (POST /turns/{id}/replays): its id once it ran. An agent's
 * replay is reserved against the daily quota first, and given back when it is refused
 * before the model is called.
 */
export async function replayTurn(deps: ReplayDeps, turnId: number, request: ReplayRequest, asker: ReplayAsker): Promise<number> {
  const { release } = await reserveReplayQuota(deps.db, asker, 1);
  let prepared: PreparedReplay;
  try {
    prepared = await prepareReplay(deps, turnId, request, asker.name);
  } catch (error) {
    await release();
    throw error;
  }
  await runReplay(deps, prepared);
  return prepared.id;
}
