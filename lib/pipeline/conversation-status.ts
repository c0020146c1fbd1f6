import { recordId } from "../record-id";
import { z } from "zod";
import {
  applyInboxChange,
  conversationPriorities,
  conversationStatuses,
  findDueSnoozes,
  readInboxRow,
  type InboxRow,
} from "../db/conversation-status";
import { labelsOfConversation, writeLabelChange } from "../db/labels";
import { labelName, labelsNamed } from "../inbox/labels";
import { setAgentEnabled } from "../db/conversations";
import type { Database } from "../db/database";
import type { SqlRunner } from "../db/sql";
import { operatorAddress } from "../envelope/address";
import { publish } from "../events/bus";
import { AppError, notFound } from "../errors";
import { log } from "../log";
import { changeHandoff } from "./handoff";
import { parseHandoffState } from "./handoff-rules";
import type { TurnDeps } from "./turn-deps";

/**
 * The team inbox's state of a conversation: open, resolved or snoozed (until a
 * time, or until the user writes), and who has it. Every change is an envelope
 * in the conversation's history, like a handoff transition, from the operator
 * who made it (or the user's chat, or the timer) to INBOX; its metadata's
 * `inbox` key says what changed.
 */

/** Where inbox changes are addressed: the team, not any one operator. */
export const INBOX = operatorAddress("inbox");

export const conversationPatchSchema = z
  .strictObject({
    /** Pause (false) or resume the agent in this conversation. */
    agentEnabled: z.boolean().optional(),
    status: z.enum(conversationStatuses).optional(),
    /** With `status: "snoozed"`: when it wakes (ISO 8601, in the future); absent or null = when the user writes. */
    snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional(),
    /** The operator who has it (an Operator id), or null for nobody. */
    assigneeId: recordId.nullable().optional(),
    /** The conversation's labels, by name (ignoring case): the whole set, [] for none. Each must exist (GET /labels). */
    labels: z.array(labelName).max(50).optional(),
    priority: z.enum(conversationPriorities).optional(),
  })
  .refine(
    (body) => Object.keys(body).length > 0,
    "nothing to change: give agentEnabled, status, snoozedUntil, assigneeId, labels or priority",
  )
  .refine((body) => body.snoozedUntil == null || body.status === "snoozed", {
    message: 'snoozedUntil goes with status "snoozed"',
    path: ["snoozedUntil"],
  });
export type ConversationPatch = z.infer<typeof conversationPatchSchema>;

/** Who makes a change: an operator's id (0 for the API token) and name. */
export type Changer = { id: number; name: string };

/**
 * An operator changes a conversation: the agent switch, its status, its
 * assignee, priority and labels. Status, assignee and priority move with
 * conditional UPDATEs in one transaction (409 with nothing written when another
 * operator changed them meanwhile); labels are set to the given set, the change
 * recorded in the same transaction.
 * Resolving a conversation that waits for (or is with) a human ends the handoff.
 */
export async function changeConversation(deps: TurnDeps, conversationId: number, body: ConversationPatch, by: Changer, now = new Date()) {
  const { db } = deps;
  const row = await readInboxRow(db, conversationId);
  if (!row) throw notFound("conversation");
  const snoozedUntil = body.snoozedUntil ? new Date(body.snoozedUntil) : null;
  if (snoozedUntil && snoozedUntil <= now) throw new AppError("bad_request", "snoozedUntil must be in the future");
  const assignee = body.assigneeId ? await db.prisma.operator.findUnique({ where: { id: body.assigneeId } }) : null;
  if (body.assigneeId && !assignee) throw new AppError("bad_request", `no operator with id ${body.assigneeId}`);
  const labels = body.labels ? await labelDiff(deps.db, conversationId, body.labels) : null;

  await db.transaction(async (sql) => {
    if (body.status && (body.status !== row.status || snoozedUntil?.getTime() !== row.snoozedUntil?.getTime())) {
      const written = await applyInboxChange(sql, statusChange(row, body.status, snoozedUntil, by, now));
      if (!written) throw changedMeanwhile();
    }
    if (body.assigneeId !== undefined && body.assigneeId !== row.assigneeId) {
      const written = await applyInboxChange(sql, {
        conversationId,
        at: now,
        set: { assigneeId: body.assigneeId },
        expect: { assigneeId: row.assigneeId },
        envelope: {
          from: operatorAddress(by.name),
          to: INBOX,
          text: assignee ? `assigned to ${assignee.name} by ${by.name}` : `unassigned by ${by.name}`,
          metadata: { inbox: { action: assignee ? "assign" : "unassign", assigneeId: body.assigneeId, by: by.name } },
        },
      });
      if (!written) throw changedMeanwhile();
    }
    if (body.priority !== undefined && body.priority !== row.priority) {
      const written = await applyInboxChange(sql, {
        conversationId,
        at: now,
        set: { priority: body.priority },
        expect: { priority: row.priority },
        envelope: {
          from: operatorAddress(by.name),
          to: INBOX,
          text: `priority ${body.priority} by ${by.name}`,
          metadata: { inbox: { action: "priority", priority: body.priority, by: by.name } },
        },
      });
      if (!written) throw changedMeanwhile();
    }
    if (labels && (labels.add.length > 0 || labels.remove.length > 0)) {
      const names = (list: { name: string }[]) => list.map((l) => l.name);
      const written = await writeLabelChange(sql, {
        conversationId,
        at: now,
        expect: labels.current,
        add: labels.add.map((l) => l.id),
        remove: labels.remove.map((l) => l.id),
        envelope: {
          from: operatorAddress(by.name),
          to: INBOX,
          text: `labels ${[...labels.add.map((l) => `+${l.name}`), ...labels.remove.map((l) => `-${l.name}`)].join(" ")} by ${by.name}`,
          metadata: { inbox: { action: "label", added: names(labels.add), removed: names(labels.remove), by: by.name } },
        },
      });
      // The set was read before this transaction: another operator's change meanwhile is a 409, never merged.
      if (!written) throw changedMeanwhile();
    }
  });
  if (body.agentEnabled !== undefined) await setAgentEnabled(db, conversationId, body.agentEnabled);
  if (body.status === "resolved" && parseHandoffState(row.handoffState) !== null) {
    try {
      await changeHandoff(deps, conversationId, { action: "release" }, by);
    } catch (error) {
      // Handed back meanwhile: the handoff has ended either way.
      if (!(error instanceof AppError)) throw error;
    }
  }
  publish(db, { type: "conversation", conversationId });
  log.info("inbox.changed", {
    conversationId,
    by: by.name,
    status: body.status,
    assigneeId: body.assigneeId,
    priority: body.priority,
    labels: body.labels?.length,
  });
}

/** The labels to put on and take off for the conversation to carry exactly `wanted` (400 for a name no label has). */
async function labelDiff(db: Database, conversationId: number, wanted: string[]) {
  const [target, current] = await Promise.all([labelsNamed(db, wanted), labelsOfConversation(db, conversationId)]);
  const targetIds = new Set(target.map((l) => l.id));
  const currentIds = new Set(current.map((l) => l.id));
  return {
    add: target.filter((l) => !currentIds.has(l.id)),
    remove: current.filter((l) => !targetIds.has(l.id)),
    current: [...currentIds],
  };
}

const changedMeanwhile = () => new AppError("conflict", "the conversation changed meanwhile; reload and try again");

function statusChange(row: InboxRow, status: InboxRow["status"], snoozedUntil: Date | null, by: Changer, at: Date) {
  const action = status === "resolved" ? "resolve" : status === "snoozed" ? "snooze" : "reopen";
  const text =
    status === "resolved"
      ? `resolved by ${by.name}`
      : status === "snoozed"
        ? `snoozed ${snoozedUntil ? `until ${snoozedUntil.toISOString()}` : "until the user writes"} by ${by.name}`
        : `reopened by ${by.name}`;
  return {
    conversationId: row.id,
    at,
    set: { status: status as "open" | "resolved" | "snoozed", snoozedUntil: status === "snoozed" ? snoozedUntil : null },
    expect: { status: row.status },
    envelope: {
      from: operatorAddress(by.name),
      to: INBOX,
      text,
      metadata: { inbox: { action, status, snoozedUntil: snoozedUntil?.toISOString() ?? null, by: by.name } },
    },
  };
}

/**
 * The user wrote: a resolved conversation reopens, a snoozed one wakes. Runs in
 * ingest's transaction, so the message and the reopening commit together; only
 * called when the conversation is not open (the hot path pays nothing).
 */
export async function reopenByUser(sql: SqlRunner, conversationId: number, status: string, from: string, at: Date) {
  const action = status === "snoozed" ? "wake" : "reopen";
  await applyInboxChange(sql, {
    conversationId,
    at,
    set: { status: "open", snoozedUntil: null },
    expect: { statusNot: "open" },
    envelope: {
      from,
      to: INBOX,
      text: action === "wake" ? "woke up: the user wrote" : "reopened: the user wrote",
      metadata: { inbox: { action, status: "open", by: "user" } },
    },
  });
}

/** Snoozes whose time has come open again (the worker's housekeeping tick, at most a poll late). */
export async function wakeSnoozed(db: Database, now = new Date()) {
  for (const due of await findDueSnoozes(db, now)) {
    const woke = await db.transaction((sql) =>
      applyInboxChange(sql, {
        conversationId: due.id,
        at: now,
        set: { status: "open", snoozedUntil: null },
        expect: { status: "snoozed", snoozedBy: now },
        envelope: {
          from: INBOX,
          to: INBOX,
          text: `woke up: snoozed until ${due.snoozedUntil?.toISOString()}`,
          metadata: { inbox: { action: "wake", status: "open", by: "timer" } },
        },
      }),
    );
    // Another tick or instance woke it, or an operator changed it meanwhile: nothing to do.
    if (woke) publish(db, { type: "conversation", conversationId: due.id });
  }
}
