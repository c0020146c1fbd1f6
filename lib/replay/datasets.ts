import { AppError, notFound } from "../errors";
import { log } from "../log";
import {
  conversationExists,
  conversationTurnIds,
  createDataset,
  createFailedReplay,
  createRun,
  existingTurns,
  findDataset,
  findRun,
  finishRun,
  listRunReplays,
  type ReplayOutput,
} from "../db/replays";
import { findTurnForMessage } from "../db/turns";
import { resolveReplayModel } from "./models";
import { reserveReplayQuota, type ReplayAsker } from "./quota";
import { prepareReplay, runReplay, type PreparedReplay, type ReplayDeps } from "./run-replay";
import { storedVariant, type ReplayRequest } from "./variant";
import { answerChanged, inReviewOrder, originalAnswer } from "./view";

/** Turns of one dataset replayed at once (each model call also waits for its provider's gate). */
export const DATASET_CONCURRENCY = 4;
/** A dataset holds at most this many turns. */
export const DATASET_MAX_TURNS = 500;

/**
 * A dataset of turns, by id or every turn of a conversation (the newest
 * DATASET_MAX_TURNS). Unknown turn ids are a 404 naming them.
 */
export async function newDataset(
  deps: Pick<ReplayDeps, "db">,
  input: { name: string; turnIds?: number[]; conversationId?: number; messageIds?: number[] },
  createdBy: string,
) {
  let turnIds = input.turnIds ? [...new Set(input.turnIds)] : [];
  if (input.conversationId !== undefined) {
    if (!(await conversationExists(deps.db, input.conversationId))) throw notFound("conversation");
    turnIds = [...turnIds, ...(await conversationTurnIds(deps.db, input.conversationId, DATASET_MAX_TURNS))];
  }
  for (const messageId of [...new Set(input.messageIds ?? [])]) {
    const turnId = await findTurnForMessage(deps.db, messageId);
    if (turnId !== null) turnIds.push(turnId);
  }
  turnIds = [...new Set(turnIds)].slice(0, DATASET_MAX_TURNS);
  if (!turnIds.length)
    throw new AppError("bad_request", "a dataset needs at least one turn (no turn ran for these messages or this conversation)");
  const found = new Set((await existingTurns(deps.db, turnIds)).map((t) => t.id));
  const missing = turnIds.filter((id) => !found.has(id));
  if (missing.length) throw new AppError("not_found", `turns not found: ${missing.slice(0, 20).join(", ")}`, { missing });
  return createDataset(deps.db, { name: input.name, turnIds, createdBy });
}

/**
 * Starts a run: every turn of the dataset replayed under one variant, at most
 * DATASET_CONCURRENCY at a time, in the background. Checks first what would fail
 * every turn (the variant's model), so a bad run is a 4xx, not a page of failures.
 * An agent's run is reserved against their daily replays, all its turns at once.
 * `finished` resolves when the run ends (tests wait on it).
 */
export async function startRun(deps: ReplayDeps, datasetId: number, request: ReplayRequest, asker: ReplayAsker) {
  const dataset = await findDataset(deps.db, datasetId);
  if (!dataset) throw notFound("dataset");
  const turnIds = dataset.turnIds as number[];
  // Without a model in the variant, each turn's own model must still be there: checked per turn.
  if (request.variant.model) resolveReplayModel(deps.models, request.variant.model, "");
  // An agent's quota, for every turn of the run at once (lib/replay/quota.ts).
  const { day: quotaDay } = await reserveReplayQuota(deps.db, asker, turnIds.length);
  const createdBy = asker.name;
  const run = await createRun(deps.db, {
    datasetId,
    mode: request.mode,
    variant: storedVariant(request.variant),
    total: turnIds.length,
    createdBy,
    quotaDay,
  });
  const finished = runAll(deps, run.id, turnIds, request, createdBy).catch(async (error) => {
    log.error("replay.run_failed", { runId: run.id, error });
    await finishRun(deps.db, run.id, "failed", "the run stopped unexpectedly").catch(() => {});
  });
  return { run, finished };
}

async function runAll(deps: ReplayDeps, runId: number, turnIds: number[], request: ReplayRequest, createdBy: string) {
  let next = 0;
  const worker = async () => {
    while (next < turnIds.length) {
      const turnId = turnIds[next++]!;
      await replayOne(deps, runId, turnId, request, createdBy);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DATASET_CONCURRENCY, turnIds.length) }, worker));
  await finishRun(deps.db, runId, "done");
}

/** One turn of a run; a turn that cannot be replayed (gone, its model gone) is a failed replay with the reason. */
async function replayOne(deps: ReplayDeps, runId: number, turnId: number, request: ReplayRequest, createdBy: string) {
  let prepared: PreparedReplay;
  try {
    prepared = await prepareReplay(deps, turnId, request, createdBy, runId);
  } catch (error) {
    const turn = (await existingTurns(deps.db, [turnId]))[0];
    if (!turn) return; // deleted with its conversation: nothing to record against
    await createFailedReplay(deps.db, {
      turnId,
      conversationId: turn.conversationId,
      runId,
      mode: request.mode,
      variant: storedVariant(request.variant),
      error: error instanceof AppError ? error.message : "the replay could not start",
      createdBy,
    });
    return;
  }
  await runReplay(deps, prepared);
}

type RunReplay = Awaited<ReturnType<typeof listRunReplays>>[number];

/** Per-turn results of a run and what they add up to against the originals. */
export function runSummary(replays: RunReplay[], total: number, finished: boolean) {
  let changed = 0;
  let becameSilent = 0;
  let startedReplying = 0;
  let startedHandingOff = 0;
  let stoppedHandingOff = 0;
  const sums = {
    replayInputTokens: 0,
    replayOutputTokens: 0,
    originalInputTokens: 0,
    originalOutputTokens: 0,
    replayLatencyMs: 0,
    originalLatencyMs: 0,
  };
  let replayCostUsd = 0;
  let originalCostUsd = 0;
  let done = 0;
  let failed = 0;
  for (const r of replays) {
    if (r.status === "failed") failed++;
    if (r.status !== "done") continue;
    done++;
    const output = r.output as ReplayOutput;
    const original = originalAnswer(r.turn.toolCalls);
    if (answerChanged(original, output)) changed++;
    if (original.replied && !output.replied) becameSilent++;
    if (!original.replied && output.replied) startedReplying++;
    if (original.handoff === null && output.handoff !== null) startedHandingOff++;
    if (original.handoff !== null && output.handoff === null) stoppedHandingOff++;
    sums.replayInputTokens += r.inputTokens ?? 0;
    sums.replayOutputTokens += r.outputTokens ?? 0;
    sums.originalInputTokens += r.turn.inputTokens ?? 0;
    sums.originalOutputTokens += r.turn.outputTokens ?? 0;
    sums.replayLatencyMs += r.latencyMs ?? 0;
    sums.originalLatencyMs += r.turn.latencyMs ?? 0;
    replayCostUsd += r.costUsd ?? 0;
    originalCostUsd += r.turn.costUsd ?? 0;
  }
  const average = (sum: number) => (done ? Math.round(sum / done) : null);
  return {
    total,
    done,
    failed,
    // A finished run has nothing running: a turn deleted meanwhile has no result.
    running: finished ? 0 : Math.max(0, total - done - failed),
    changed,
    becameSilent,
    startedReplying,
    startedHandingOff,
    stoppedHandingOff,
    tokens: {
      replay: { input: sums.replayInputTokens, output: sums.replayOutputTokens },
      original: { input: sums.originalInputTokens, output: sums.originalOutputTokens },
    },
    latencyMs: { replayAverage: average(sums.replayLatencyMs), originalAverage: average(sums.originalLatencyMs) },
    costUsd: { replay: replayCostUsd, original: originalCostUsd },
  };
}

/** A run with its per-turn results and summary; with `compareTo`, another run of the same dataset beside it, turn by turn. */
export async function runReport(deps: Pick<ReplayDeps, "db">, datasetId: number, runId: number, compareTo?: number) {
  const run = await findRun(deps.db, datasetId, runId);
  if (!run) throw notFound("run");
  const replays = await listRunReplays(deps.db, run.id);
  const other = compareTo !== undefined ? await findRun(deps.db, datasetId, compareTo) : null;
  if (compareTo !== undefined && !other) throw notFound("run to compare with");
  const otherReplays = other ? await listRunReplays(deps.db, other.id) : [];
  const results = inReviewOrder(
    replays.map((r) => ({
      replayId: r.id,
      turnId: r.turnId,
      status: r.status as "running" | "done" | "failed",
      error: r.error,
      original: originalAnswer(r.turn.toolCalls),
      output: (r.output as ReplayOutput | null) ?? null,
      answerChanged: r.status === "done" && answerChanged(originalAnswer(r.turn.toolCalls), r.output as ReplayOutput),
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      latencyMs: r.latencyMs,
      originalLatencyMs: r.turn.latencyMs,
      costUsd: r.costUsd,
    })),
  );
  const comparison = other
    ? {
        runId: other.id,
        variant: other.variant as Record<string, unknown>,
        mode: other.mode as "frozen" | "rebuild",
        summary: runSummary(otherReplays, other.total, other.status !== "running"),
        turns: results.map((r) => {
          const theirs = otherReplays.find((o) => o.turnId === r.turnId);
          const theirOutput = (theirs?.output as ReplayOutput | null) ?? null;
          return {
            turnId: r.turnId,
            this: r.output,
            other: theirOutput,
            differ: !!theirOutput && !!r.output && answerChanged({ ...r.output, replied: r.output.replied }, theirOutput),
          };
        }),
      }
    : null;
  return {
    run: {
      ...run,
      mode: run.mode as "frozen" | "rebuild",
      status: run.status as "running" | "done" | "failed",
      variant: run.variant as Record<string, unknown>,
    },
    summary: runSummary(replays, run.total, run.status !== "running"),
    results,
    comparison,
  };
}
