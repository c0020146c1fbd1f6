import type { Database } from "./database";

/** What a replay's model did (its tools captured, nothing carried out). */
export type ReplayOutput = {
  replied: boolean;
  text: string | null;
  handoff: string | null;
  /** As a turn records its tool calls (lib/pipeline/turn-deps.ts ToolCallRecord). */
  toolCalls: { tool?: "handoff"; message: string; outcome: { status: string } | { error: string } }[];
};

type Json = Record<string, unknown>;
/** A value for a Json column (Prisma's input type differs per generated client). */
const json = (value: unknown) => value as never;

export function createReplay(
  db: Database,
  input: {
    turnId: number;
    conversationId: number;
    runId: number | null;
    mode: string;
    variant: unknown;
    model: string;
    system: string;
    prompt: unknown;
    createdBy: string;
  },
) {
  return db.prisma.replay.create({
    data: { ...input, variant: json(input.variant), prompt: json(input.prompt), status: "running" },
    select: { id: true },
  });
}

/** A replay that could not even start (a dataset's turn that is gone): failed with the reason. */
export function createFailedReplay(
  db: Database,
  input: { turnId: number; conversationId: number; runId: number; mode: string; variant: unknown; error: string; createdBy: string },
) {
  return db.prisma.replay.create({
    data: { ...input, variant: json(input.variant), status: "failed", finishedAt: new Date() },
    select: { id: true },
  });
}

export function finishReplay(
  db: Database,
  id: number,
  result: {
    status: "done" | "failed";
    error: string | null;
    output: ReplayOutput;
    usage: Json;
    latencyMs: number;
    inputTokens: number | null;
    outputTokens: number | null;
    costUsd: number | null;
  },
) {
  const { cachedInputTokens: _cached, ...columns } = result as typeof result & { cachedInputTokens?: unknown };
  return db.prisma.replay.update({
    where: { id },
    data: { ...columns, output: json(result.output), usage: json(result.usage), finishedAt: new Date() },
  });
}

const withTurn = {
  turn: {
    select: {
      id: true,
      system: true,
      prompt: true,
      toolCalls: true,
      usage: true,
      latencyMs: true,
      inputTokens: true,
      outputTokens: true,
      costUsd: true,
      model: true,
    },
  },
} as const;

export function findReplay(db: Database, id: number) {
  return db.prisma.replay.findUnique({ where: { id }, include: withTurn });
}

/** A turn's replays, newest first. */
export function listTurnReplays(db: Database, turnId: number, take = 50) {
  return db.prisma.replay.findMany({ where: { turnId }, orderBy: { id: "desc" }, take, include: withTurn });
}

export function listRunReplays(db: Database, runId: number) {
  return db.prisma.replay.findMany({ where: { runId }, orderBy: { id: "asc" }, include: withTurn });
}

export type StoredReplay = NonNullable<Awaited<ReturnType<typeof findReplay>>>;

export function createDataset(db: Database, input: { name: string; turnIds: number[]; createdBy: string }) {
  return db.prisma.dataset.create({ data: { ...input, turnIds: json(input.turnIds) } });
}

export function findDataset(db: Database, id: number) {
  return db.prisma.dataset.findUnique({ where: { id } });
}

/** A run's bookkeeping the API does not show: the quota day is for giving back turns it never reached (lib/replay/interrupted.ts). */
const RUN_INTERNALS = { quotaDay: true } as const;

export function listDatasets(db: Database, take = 100) {
  return db.prisma.dataset.findMany({
    orderBy: { id: "desc" },
    take,
    include: { runs: { orderBy: { id: "desc" }, take: 20, omit: RUN_INTERNALS } },
  });
}

/** Which of these turns exist, with their conversation. */
export function existingTurns(db: Database, ids: number[]) {
  return db.prisma.turn.findMany({ where: { id: { in: ids } }, select: { id: true, conversationId: true } });
}

export async function conversationExists(db: Database, id: number): Promise<boolean> {
  return (await db.prisma.conversation.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** A conversation's turns, oldest first (a dataset from a conversation). */
export async function conversationTurnIds(db: Database, conversationId: number, take: number): Promise<number[]> {
  const rows = await db.prisma.turn.findMany({ where: { conversationId }, orderBy: { id: "desc" }, take, select: { id: true } });
  return rows.map((r) => r.id).reverse();
}

export function createRun(
  db: Database,
  input: { datasetId: number; mode: string; variant: unknown; total: number; createdBy: string; quotaDay: string | null },
) {
  return db.prisma.datasetRun.create({ data: { ...input, variant: json(input.variant), status: "running" }, omit: RUN_INTERNALS });
}

/**
 * Reserves `wanted` replays of `operator` on `day` when that keeps the day's total
 * within `limit`, in one statement (two requests at once cannot both take the last
 * one). Returns the day's total after it, or null when it would not fit.
 */
export async function reserveReplays(db: Database, operator: string, day: string, wanted: number, limit: number): Promise<number | null> {
  const [row] = await db.write<{ used: number }>([
    `INSERT INTO "ReplayAllowance" ("operator", "day", "used") SELECT ?, ?, CAST(? AS INTEGER) WHERE CAST(? AS INTEGER) <= CAST(? AS INTEGER)
     ON CONFLICT ("operator", "day") DO UPDATE SET "used" = "ReplayAllowance"."used" + excluded."used"
       WHERE "ReplayAllowance"."used" + excluded."used" <= CAST(? AS INTEGER)
     RETURNING "used"`,
    operator,
    day,
    wanted,
    wanted,
    limit,
    limit,
  ]);
  return row ? Number(row.used) : null;
}

/** Gives back replays reserved for a request refused before any model call (an unknown turn, a model that is gone). */
export async function releaseReplays(db: Database, operator: string, day: string, count: number) {
  await db.write([
    `UPDATE "ReplayAllowance" SET "used" = CASE WHEN "used" > CAST(? AS INTEGER) THEN "used" - CAST(? AS INTEGER) ELSE 0 END WHERE "operator" = ? AND "day" = ?`,
    count,
    count,
    operator,
    day,
  ]);
}

/** Replays `operator` reserved on `day`. */
export async function replaysReserved(db: Database, operator: string, day: string): Promise<number> {
  const [row] = await db.read<{ used: number }>(`SELECT "used" FROM "ReplayAllowance" WHERE "operator" = ? AND "day" = ?`, operator, day);
  return Number(row?.used ?? 0);
}

export function finishRun(db: Database, id: number, status: "done" | "failed", error: string | null = null) {
  return db.prisma.datasetRun.update({ where: { id }, data: { status, error, finishedAt: new Date() } });
}

export function findRun(db: Database, datasetId: number, runId: number) {
  return db.prisma.datasetRun.findFirst({ where: { id: runId, datasetId }, omit: RUN_INTERNALS });
}

export function deleteDataset(db: Database, id: number) {
  return db.prisma.dataset.deleteMany({ where: { id } });
}

export function deleteReplay(db: Database, id: number) {
  return db.prisma.replay.deleteMany({ where: { id } });
}

const INTERRUPTED_REPLAY = "interrupted: the server stopped while this replay ran; replay the turn again";

/**
 * Replays and dataset runs a stopped process left "running" (they run in the process
 * that started them, not from a queue): a replay still running after `staleMs` (longer
 * than any model call it makes), and a run with no replay started or finished for that
 * long, end failed with the reason, so the console never shows them running forever.
 * Returns how many replays, and the runs ended, with how many of their turns never started.
 */
export async function failInterruptedReplays(db: Database, staleMs: number, now = new Date()) {
  const before = new Date(now.getTime() - staleMs);
  const running = await db.prisma.datasetRun.findMany({
    where: { status: "running", createdAt: { lt: before } },
    select: { id: true, total: true, createdBy: true, quotaDay: true, replays: { select: { createdAt: true, finishedAt: true } } },
  });
  // Read before the replays below are ended: their end is this sweep, not the run's activity.
  const replays = await db.prisma.replay.updateMany({
    where: { status: "running", createdAt: { lt: before } },
    data: { status: "failed", error: INTERRUPTED_REPLAY, finishedAt: now },
  });
  const runs: { id: number; createdBy: string; quotaDay: string | null; unrun: number }[] = [];
  for (const run of running) {
    const lastActivity = Math.max(0, ...run.replays.flatMap((r) => [r.createdAt.getTime(), r.finishedAt?.getTime() ?? 0]));
    if (lastActivity >= before.getTime()) continue;
    const { count } = await db.prisma.datasetRun.updateMany({
      where: { id: run.id, status: "running" },
      data: {
        status: "failed",
        finishedAt: now,
        error: `interrupted: the server stopped during the run after ${run.replays.length} of ${run.total} turns; start the run again`,
      },
    });
    if (count)
      runs.push({ id: run.id, createdBy: run.createdBy, quotaDay: run.quotaDay, unrun: Math.max(0, run.total - run.replays.length) });
  }
  return { replays: replays.count, runs };
}
