import { type BotScope, conversationScopeWhere } from "./conversation-scope";
import type { Database } from "./database";

export type ForkKind = "background" | "interactive";
/** background: running → done → expired; interactive: active → exited (resume reactivates). */
export type ForkStatus = "running" | "done" | "failed" | "active" | "exited" | "expired";

/**
 * Background forks still "running" whose task envelope has failed (the worker gave
 * up, a send was refused): they end "failed" with the reason as their summary.
 */
export async function failForksOfFailedTasks(db: Database, now: Date) {
  const stuck = await db.prisma.fork.findMany({
    where: { kind: "background", status: "running", envelopes: { some: { status: "failed", to: { startsWith: "agent:" } } } },
    select: {
      id: true,
      envelopes: { where: { status: "failed", to: { startsWith: "agent:" } }, select: { lastDeliveryError: true }, take: 1 },
    },
    take: 100,
  });
  for (const fork of stuck) {
    await db.prisma.fork.updateMany({
      where: { id: fork.id, status: "running" },
      data: { status: "failed", endedAt: now, summary: `failed: ${fork.envelopes[0]?.lastDeliveryError ?? "the task failed"}` },
    });
  }
  return stuck.length;
}

export function findFork(db: Database, id: number) {
  return db.prisma.fork.findUnique({ where: { id } });
}

/** A fork's kind and status, with its conversation's active fork: what decides where an outbound message goes. */
export async function forkSessionState(db: Database, forkId: number) {
  const fork = await db.prisma.fork.findUnique({
    where: { id: forkId },
    select: { kind: true, status: true, conversation: { select: { activeForkId: true } } },
  });
  return fork ? { kind: fork.kind, status: fork.status, activeForkId: fork.conversation.activeForkId } : null;
}

export function listForks(db: Database, filter: { conversationId?: number; take: number; bots?: BotScope }) {
  return db.prisma.fork.findMany({
    where: {
      ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
      ...(filter.bots ? { conversation: conversationScopeWhere(filter.bots) } : {}),
    },
    orderBy: { id: "desc" },
    take: filter.take,
    include: {
      _count: { select: { messages: true } },
      conversation: { select: { id: true, title: true, platformChatId: true, activeForkId: true } },
    },
  });
}

/** The fork and its ancestors, nearest first: an interactive fork's session includes its parent's. */
export async function forkLineage(db: Database, forkId: number) {
  const lineage = [];
  let next: number | null = forkId;
  for (let hops = 0; next !== null && hops < 10; hops++) {
    const fork: { id: number; parentForkId: number | null; startedAt: Date; kind: string; baseMessageId: number | null } | null =
      await db.prisma.fork.findUnique({
        where: { id: next },
        select: { id: true, parentForkId: true, startedAt: true, kind: true, baseMessageId: true },
      });
    if (!fork) break;
    lineage.push(fork);
    next = fork.parentForkId;
  }
  return lineage;
}

/** The newest main-session message of a conversation: where a new fork branches off. */
export async function lastMainMessageId(db: Database, conversationId: number) {
  const last = await db.prisma.message.findFirst({
    where: { conversationId, forkId: null },
    orderBy: { id: "desc" },
    select: { id: true },
  });
  return last?.id ?? 0;
}

export function createFork(
  db: Database,
  data: {
    conversationId: number;
    kind: ForkKind;
    status: ForkStatus;
    parentForkId?: number | null;
    startedBy: string;
    title?: string | null;
    baseMessageId?: number | null;
  },
) {
  return db.prisma.fork.create({ data });
}

export function updateFork(
  db: Database,
  id: number,
  data: {
    status?: ForkStatus;
    exitStrategy?: string | null;
    summary?: string | null;
    idleWarnings?: number;
    lastActivityAt?: Date;
    endedAt?: Date | null;
    startedAt?: Date;
    baseMessageId?: number;
  },
) {
  return db.prisma.fork.update({ where: { id }, data });
}

/**
 * Claims an active interactive fork's exit (status exited) with one conditional
 * UPDATE: of two exits at once (a handoff command and the `handoff` tool, two
 * commands, an operator and the idle sweep) exactly one gets true and does the rest.
 */
export async function claimForkExit(db: Database, id: number, strategy: string, at: Date): Promise<boolean> {
  const { count } = await db.prisma.fork.updateMany({
    where: { id, kind: "interactive", status: "active" },
    data: { status: "exited", exitStrategy: strategy, endedAt: at },
  });
  return count === 1;
}

/** A burst of resumes queues for Prisma's pool: waiting past its default 2 s would be a 500, not a 409. */
const RESUME_TRANSACTION = { maxWait: 15_000, timeout: 15_000 };

/** Thrown inside a resume's transaction when it lost: rolls back what it wrote. */
class ResumeLost extends Error {}

/**
 * Makes a resumed fork the conversation's active one, in one transaction: the
 * conversation's row is claimed while no fork is active, the interactive child is
 * created (or the interactive fork reopened), and `activeForkId` set. Of two resumes
 * at once the second's claim waits for the first's row lock on PostgreSQL and then
 * matches nothing; its transaction rolls back, so a loser changes nothing.
 * Returns null when it lost.
 */
export async function activateResumedFork(
  db: Database,
  conversationId: number,
  resume: { create: Parameters<typeof createFork>[1] } | { reopen: number; at: Date },
) {
  try {
    return await db.prisma.$transaction(async (tx) => {
      // The conversation's row first, by a write that changes nothing: a second resume waits
      // here, not after its own INSERT (the INSERT's key-share lock and the unique
      // activeForkId's update lock of two resumes would deadlock each other on PostgreSQL).
      const free = await tx.conversation.updateMany({ where: { id: conversationId, activeForkId: null }, data: { activeForkId: null } });
      if (free.count !== 1) throw new ResumeLost();
      const fork =
        "create" in resume
          ? await tx.fork.create({ data: resume.create })
          : await tx.fork.update({
              where: { id: resume.reopen },
              // Active again: how it ended last time (strategy, report) no longer describes it.
              data: { status: "active", endedAt: null, exitStrategy: null, summary: null, idleWarnings: 0, lastActivityAt: resume.at },
            });
      const { count } = await tx.conversation.updateMany({
        where: { id: conversationId, activeForkId: null },
        data: { activeForkId: fork.id },
      });
      if (count !== 1) throw new ResumeLost();
      return fork;
    }, RESUME_TRANSACTION);
  } catch (error) {
    if (error instanceof ResumeLost) return null;
    throw error;
  }
}

/** Makes `forkId` the conversation's active interactive fork only if none is (null to clear). */
export async function setActiveFork(db: Database, conversationId: number, forkId: number | null, expectedCurrent: number | null) {
  const { count } = await db.prisma.conversation.updateMany({
    where: { id: conversationId, activeForkId: expectedCurrent },
    data: { activeForkId: forkId },
  });
  return count === 1;
}

/** Interactive forks idle since before `before` (for the idle sweep). */
export function idleInteractiveForks(db: Database, before: Date) {
  return db.prisma.fork.findMany({ where: { kind: "interactive", status: "active", lastActivityAt: { lt: before } } });
}

/** Marks background forks older than the TTL expired; they no longer resume anything. */
export function expireBackgroundForks(db: Database, startedBefore: Date, now: Date) {
  return db.prisma.fork.updateMany({
    where: { kind: "background", status: { in: ["running", "done"] }, startedAt: { lt: startedBefore } },
    data: { status: "expired", endedAt: now },
  });
}

/** Moves a fork's messages into the main session (exit with "save"). */
export function mergeForkMessages(db: Database, forkId: number) {
  return db.prisma.message.updateMany({ where: { forkId }, data: { forkId: null } });
}

/** Main-session messages stored after `afterId` up to `untilId`, newest last: a fork's "pending updates". */
export async function mainSessionSince(db: Database, conversationId: number, afterId: number, untilId: number, take: number) {
  const rows = await db.prisma.message.findMany({
    where: { conversationId, forkId: null, id: { gt: afterId, lte: untilId } },
    orderBy: [{ id: "desc" }],
    take,
    select: { id: true, senderKind: true, senderName: true, text: true, sentAt: true, shared: true },
  });
  return rows.reverse();
}

export function forkMessages(db: Database, forkId: number, take: number) {
  return db.prisma.message.findMany({
    where: { forkId },
    orderBy: [{ sentAt: "asc" }, { id: "asc" }],
    take,
    select: { senderKind: true, senderName: true, text: true },
  });
}
