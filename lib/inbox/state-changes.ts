import { findConversation } from "../db/conversations";
import type { Database } from "../db/database";
import { readEnvelopeMetadata } from "../db/envelope-metadata";
import { notFound } from "../errors";

/**
 * A conversation's state changes (inbox status, assignee, priority and labels, human handoff), read
 * back from the envelopes that record them, for the timeline to show between the
 * messages. The envelopes stay the one record; this only reads them.
 */

/** A status, assignee, priority, label or handoff change, as its envelope records it. */
export type StateChange = {
  /** The recording envelope's id. */
  id: number;
  at: Date;
  kind: "inbox" | "handoff";
  action: "resolve" | "reopen" | "snooze" | "wake" | "assign" | "unassign" | "priority" | "label" | "request" | "take" | "release";
  /** An operator's sign-in name, "user" (their message), "timer" (a snooze ran out) or null. */
  by: string | null;
  /** assign: who has it now (their display name, else sign-in name). */
  assignee: string | null;
  /** snooze: until when (ISO 8601), null = until the user writes. */
  snoozedUntil: string | null;
  /** request: why a human was asked for. */
  reason: string | null;
  /** priority: the new priority. */
  priority: string | null;
  /** label: the label names put on and taken off (as named then). */
  labelsAdded: string[];
  labelsRemoved: string[];
};

/** At most this many changes, the newest. */
const LIMIT = 500;

/**
 * The changes of one conversation, oldest first. Records are the `done` envelopes
 * without a message (a chat message's envelope has one) whose metadata holds an
 * inbox change or a handoff move; the JSON is only read for those.
 */
export async function conversationStateChanges(db: Database, conversationId: number): Promise<StateChange[]> {
  if (!(await findConversation(db, conversationId))) throw notFound("conversation");
  const recorded =
    db.dialect === "sqlite"
      ? `(json_extract("metadata", '$.inbox') IS NOT NULL OR json_extract("metadata", '$.handoff.action') IS NOT NULL)`
      : `("metadata" -> 'inbox' IS NOT NULL OR "metadata" #>> '{handoff,action}' IS NOT NULL)`;
  const rows = await db.read<{ id: number; metadata: unknown; createdAt: Date | string }>(
    `SELECT "id", "metadata", "createdAt" FROM "Envelope"
     WHERE "conversationId" = ? AND "status" = 'done' AND "messageId" IS NULL AND ${recorded} ORDER BY "id" DESC LIMIT ?`,
    conversationId,
    LIMIT,
  );
  const changes = rows.reverse().flatMap((row) => {
    const change = toChange(Number(row.id), new Date(row.createdAt), readEnvelopeMetadata(row.metadata));
    return change ? [change] : [];
  });
  const ids = [...new Set(changes.flatMap((c) => (typeof c.assignee === "number" ? [c.assignee] : [])))];
  const operators = ids.length
    ? await db.prisma.operator.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, displayName: true } })
    : [];
  const names = new Map(operators.map((o) => [o.id, o.displayName ?? o.name]));
  return changes.map((c) => ({
    ...c,
    assignee: typeof c.assignee === "number" ? (names.get(c.assignee) ?? `operator #${c.assignee}`) : null,
  }));
}

type Raw = Omit<StateChange, "assignee"> & { assignee: number | null };

function toChange(id: number, at: Date, metadata: ReturnType<typeof readEnvelopeMetadata>): Raw | null {
  const { handoff, inbox } = metadata;
  // A handoff move's record (not the user's envelope that asked, nor a refused request).
  if (handoff?.action && !handoff.via && !handoff.refused)
    return {
      id,
      at,
      kind: "handoff",
      action: handoff.action,
      by: handoff.operator ?? null,
      assignee: null,
      snoozedUntil: null,
      reason: handoff.reason ?? null,
      priority: null,
      labelsAdded: [],
      labelsRemoved: [],
    };
  if (inbox)
    return {
      id,
      at,
      kind: "inbox",
      action: inbox.action,
      by: inbox.by ?? null,
      assignee: inbox.action === "assign" ? (inbox.assigneeId ?? null) : null,
      snoozedUntil: inbox.snoozedUntil ?? null,
      reason: null,
      priority: inbox.action === "priority" ? (inbox.priority ?? null) : null,
      labelsAdded: inbox.added ?? [],
      labelsRemoved: inbox.removed ?? [],
    };
  return null;
}
