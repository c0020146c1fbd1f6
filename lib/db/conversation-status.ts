import type { Database } from "./database";
import { insertTransitionRecord } from "./handoff";
import type { SqlRunner } from "./sql";

export const conversationStatuses = ["open", "resolved", "snoozed"] as const;
export type ConversationStatus = (typeof conversationStatuses)[number];

/** A conversation's priority, lowest first (the list's priority sort ranks them in this order). */
export const conversationPriorities = ["none", "low", "medium", "high", "urgent"] as const;
export type ConversationPriority = (typeof conversationPriorities)[number];

/** The inbox columns of one conversation, as a status change reads them first. */
export type InboxRow = {
  id: number;
  status: string;
  snoozedUntil: Date | null;
  assigneeId: number | null;
  handoffState: string | null;
  priority: string;
};

export function readInboxRow(db: Database, id: number): Promise<InboxRow | null> {
  return db.prisma.conversation.findUnique({
    where: { id },
    select: { id: true, status: true, snoozedUntil: true, assigneeId: true, handoffState: true, priority: true },
  });
}

/** One inbox change: the columns it sets, the state it must start from, and its record in the history. */
export type InboxChangeWrite = {
  conversationId: number;
  at: Date;
  set: { status: ConversationStatus; snoozedUntil: Date | null } | { assigneeId: number | null } | { priority: ConversationPriority };
  /**
   * The row as the caller read it: the conditional UPDATE's WHERE, so a change made
   * meanwhile wins and this one writes nothing. `snoozedBy`: a snooze due by then.
   */
  expect: { status?: string; statusNot?: string; assigneeId?: number | null; snoozedBy?: Date; priority?: string };
  /** The change's envelope (done at once: a record, never delivered). */
  envelope: { from: string; to: string; text: string; metadata: Record<string, unknown> };
};

/**
 * Writes one inbox change (status, assignee or priority) with one conditional UPDATE and
 * records it as an envelope, on the caller's transaction. Returns the envelope's
 * id, or null when the row had already moved (nothing written).
 */
export async function applyInboxChange(sql: SqlRunner, input: InboxChangeWrite): Promise<{ envelopeId: number } | null> {
  const sets: string[] = [];
  const params: (string | number | Date | null)[] = [];
  if ("status" in input.set) {
    sets.push(`"status" = ?`, `"snoozedUntil" = ?`, `"statusChangedAt" = ?`);
    params.push(input.set.status, input.set.snoozedUntil, input.at);
  } else if ("priority" in input.set) {
    sets.push(`"priority" = ?`);
    params.push(input.set.priority);
  } else {
    sets.push(`"assigneeId" = ?`);
    params.push(input.set.assigneeId);
  }
  sets.push(`"updatedAt" = ?`);
  params.push(input.at);
  const where: string[] = [`"id" = ?`];
  params.push(input.conversationId);
  const { status, statusNot, assigneeId, snoozedBy, priority } = input.expect;
  if (priority !== undefined) {
    where.push(`"priority" = ?`);
    params.push(priority);
  }
  if (status !== undefined) {
    where.push(`"status" = ?`);
    params.push(status);
  }
  if (statusNot !== undefined) {
    where.push(`"status" <> ?`);
    params.push(statusNot);
  }
  if (assigneeId === null) where.push(`"assigneeId" IS NULL`);
  else if (assigneeId !== undefined) {
    where.push(`"assigneeId" = ?`);
    params.push(assigneeId);
  }
  if (snoozedBy !== undefined) {
    where.push(`"snoozedUntil" <= ?`);
    params.push(snoozedBy);
  }
  const changed = await sql.run(`UPDATE "Conversation" SET ${sets.join(", ")} WHERE ${where.join(" AND ")}`, ...params);
  if (Number(changed) !== 1) return null;
  return insertTransitionRecord(sql, input);
}

/** Snoozed conversations whose time has come, oldest first (the housekeeping tick wakes them). */
export function findDueSnoozes(db: Database, now: Date) {
  return db.prisma.conversation.findMany({
    where: { status: "snoozed", snoozedUntil: { lte: now } },
    orderBy: { snoozedUntil: "asc" },
    take: 100,
    select: { id: true, snoozedUntil: true },
  });
}
