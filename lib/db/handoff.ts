import { type BotScope, conversationScopeWhere } from "./conversation-scope";
import type { Database } from "./database";
import type { SqlRunner } from "./sql";

export type HandoffRow = {
  id: number;
  channel: string;
  platformChatId: string;
  title: string | null;
  activeForkId: number | null;
  handoffState: string | null;
  handoffReason: string | null;
  handoffRequestedAt: Date | null;
  handoffOperator: string | null;
  handoffAssignedAt: Date | null;
  handoffTimedOutAt: Date | null;
  lastHandoffFrom: Date | null;
  lastHandoffUntil: Date | null;
  lastHandoffOperator: string | null;
};

const handoffSelect = {
  id: true,
  channel: true,
  platformChatId: true,
  title: true,
  activeForkId: true,
  handoffState: true,
  handoffReason: true,
  handoffRequestedAt: true,
  handoffOperator: true,
  handoffAssignedAt: true,
  handoffTimedOutAt: true,
  lastHandoffFrom: true,
  lastHandoffUntil: true,
  lastHandoffOperator: true,
} as const;

export function readHandoff(db: Database, conversationId: number): Promise<HandoffRow | null> {
  return db.prisma.conversation.findUnique({ where: { id: conversationId }, select: handoffSelect });
}

/**
 * What may stop the agent's reply, read again right before it goes out (on the turn's
 * hand-written path, one statement): the handoff state, and the bot's membership of
 * the chat (lib/db/conversations.ts `readMembership`).
 */
export async function readReplyGate(
  db: Database,
  conversationId: number,
): Promise<{ handoffState: string | null; membership: string | null }> {
  const [row] = await db.read<{ handoffState: string | null; membership: string | null }>(
    `SELECT "handoffState", "membership" FROM "Conversation" WHERE "id" = ?`,
    conversationId,
  );
  return { handoffState: row?.handoffState ?? null, membership: row?.membership ?? null };
}

/** What one transition writes: the new state's columns and its record in the history. */
export type TransitionWrite = {
  conversationId: number;
  action: "request" | "take" | "release";
  /** The states the action may start from (lib/pipeline/handoff-rules.ts `allowedFrom`): the conditional UPDATE's WHERE. */
  from: readonly (string | null)[];
  /** The state it moves to (lib/pipeline/handoff-rules.ts `stateAfter`): the state machine is written there only. */
  to: string | null;
  at: Date;
  reason?: string | null;
  operator?: string | null;
  /** take: the taking operator's id becomes the conversation's assignee (none for the API token). */
  assigneeId?: number | null;
  /** The transition's envelope (done at once: a record, never delivered). */
  envelope: { from: string; to: string; text: string; replyToEnvelopeId?: number | null; metadata: Record<string, unknown> };
};

/**
 * Moves a conversation's handoff state with one conditional UPDATE (WHERE the
 * state is one the action may start from) and records the transition as an
 * envelope, in one transaction. Two operators (or instances) taking the same
 * conversation: the database lets exactly one UPDATE match. Returns the
 * transition envelope's id, or null when the state had already moved.
 */
export async function writeTransition(db: Database, input: TransitionWrite): Promise<{ envelopeId: number } | null> {
  return db.transaction(async (sql) => {
    const states = input.from.filter((s) => s !== null);
    const where = [...(input.from.includes(null) ? [`"handoffState" IS NULL`] : []), ...states.map(() => `"handoffState" = ?`)].join(
      " OR ",
    );
    let changed: number;
    if (input.action === "request") {
      changed = await sql.run(
        `UPDATE "Conversation" SET "handoffState" = ?, "handoffReason" = ?, "handoffRequestedAt" = ?, "handoffOperator" = NULL,
           "handoffAssignedAt" = NULL, "handoffTimedOutAt" = NULL, "updatedAt" = ? WHERE "id" = ? AND (${where})`,
        input.to,
        input.reason ?? null,
        input.at,
        input.at,
        input.conversationId,
        ...states,
      );
    } else if (input.action === "take") {
      changed = await sql.run(
        `UPDATE "Conversation" SET "handoffState" = ?, "handoffOperator" = ?, "assigneeId" = COALESCE(?, "assigneeId"), "handoffAssignedAt" = ?,
           "updatedAt" = ? WHERE "id" = ? AND (${where})`,
        input.to,
        input.operator ?? null,
        input.assigneeId ?? null,
        input.at,
        input.at,
        input.conversationId,
        ...states,
      );
    } else {
      // SET expressions read the row as it was: the ending handoff becomes the "last" one.
      changed = await sql.run(
        `UPDATE "Conversation" SET "lastHandoffFrom" = COALESCE("handoffAssignedAt", "handoffRequestedAt"), "lastHandoffUntil" = ?,
           "lastHandoffOperator" = COALESCE("handoffOperator", ?), "handoffState" = ?, "handoffReason" = NULL, "handoffRequestedAt" = NULL,
           "handoffOperator" = NULL, "handoffAssignedAt" = NULL, "handoffTimedOutAt" = NULL, "updatedAt" = ? WHERE "id" = ? AND (${where})`,
        input.at,
        input.operator ?? null,
        input.to,
        input.at,
        input.conversationId,
        ...states,
      );
    }
    if (Number(changed) !== 1) return null;
    return insertTransitionRecord(sql, input);
  });
}

/**
 * A state change's record in the history: a `done` envelope in the conversation,
 * threaded under `replyToEnvelopeId` when given (handoff moves, inbox status and
 * assignee changes). Runs inside the caller's transaction, after its conditional UPDATE.
 */
export async function insertTransitionRecord(
  sql: SqlRunner,
  input: { conversationId: number; at: Date; envelope: TransitionWrite["envelope"] },
): Promise<{ envelopeId: number }> {
  const parent = input.envelope.replyToEnvelopeId
    ? await sql.one<{ id: number; threadRootId: number | null }>(
        `SELECT "id", "threadRootId" FROM "Envelope" WHERE "id" = ?`,
        input.envelope.replyToEnvelopeId,
      )
    : undefined;
  const envelope = (await sql.one<{ id: number }>(
    `INSERT INTO "Envelope" ("from", "to", "status", "text", "replyToEnvelopeId", "threadRootId", "conversationId", "metadata", "doneAt", "createdAt", "updatedAt")
     VALUES (?, ?, 'done', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
    input.envelope.from,
    input.envelope.to,
    input.envelope.text,
    parent?.id ?? null,
    parent ? (parent.threadRootId ?? parent.id) : null,
    input.conversationId,
    input.envelope.metadata,
    input.at,
    input.at,
    input.at,
  ))!;
  return { envelopeId: envelope.id };
}

/**
 * Conversations handed to a human (the inbox's "Needs a human"): the ones nobody has
 * taken first, longest waiting first, then those an operator has ("waiting" sorts
 * after "assigned", hence desc): an older, already-taken handoff never pushes a
 * user who is still waiting down the list.
 */
export function listHandoffs(db: Database, take = 200, bots?: BotScope) {
  return db.prisma.conversation.findMany({
    where: { handoffState: { in: ["waiting", "assigned"] }, ...conversationScopeWhere(bots) },
    orderBy: [{ handoffState: "desc" }, { handoffRequestedAt: "asc" }, { id: "asc" }],
    take,
    select: handoffSelect,
  });
}

/** Waiting handoffs requested before `before` whose user was not told yet. */
export function findOverdueHandoffs(db: Database, before: Date) {
  return db.prisma.conversation.findMany({
    where: { handoffState: "waiting", handoffTimedOutAt: null, handoffRequestedAt: { lt: before } },
    orderBy: { handoffRequestedAt: "asc" },
    take: 100,
    select: handoffSelect,
  });
}

/** Marks a waiting handoff as timed out, once: true for the one caller that did (ticks and instances overlap). */
export async function markHandoffTimedOut(db: Database, conversationId: number, requestedAt: Date, at: Date): Promise<boolean> {
  const { count } = await db.prisma.conversation.updateMany({
    where: { id: conversationId, handoffState: "waiting", handoffTimedOutAt: null, handoffRequestedAt: requestedAt },
    data: { handoffTimedOutAt: at },
  });
  return count === 1;
}

/** The text every agent-made handoff request's envelope starts with (requestHandoff writes it; the per-user count reads it). */
export const HANDOFF_REQUEST_TEXT = "handoff requested: ";

/** Who sent the message an inbound envelope carries: its platform and sender id, or null (no message, no sender). */
export async function senderOfEnvelope(db: Database, envelopeId: number): Promise<{ channel: string; senderPlatformId: string } | null> {
  const envelope = await db.prisma.envelope.findUnique({
    where: { id: envelopeId },
    select: { message: { select: { senderPlatformId: true, conversation: { select: { channel: true } } } } },
  });
  const message = envelope?.message;
  return message?.senderPlatformId ? { channel: message.conversation.channel, senderPlatformId: message.senderPlatformId } : null;
}

/**
 * Handoffs the agent requested since `since` in answer to this user's messages,
 * in any conversation of the platform (a forum's topics are conversations of
 * their own), whatever became of them since: one taken and handed back still counts.
 */
export function countUserHandoffs(db: Database, user: { channel: string; senderPlatformId: string }, since: Date): Promise<number> {
  return db.prisma.envelope.count({
    where: {
      // Every request of the hour counts, whatever became of it since (a hand-back clears the conversation's own fields).
      conversation: { channel: user.channel },
      createdAt: { gte: since },
      from: { startsWith: "agent:" },
      text: { startsWith: HANDOFF_REQUEST_TEXT },
      replyTo: { message: { senderPlatformId: user.senderPlatformId } },
    },
  });
}
