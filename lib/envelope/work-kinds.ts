/**
 * The kinds of work an envelope can be, declared once: how it is told apart,
 * who claims it, how a batch of it is planned, what it needs and how it is
 * retried. The claim (lib/db/claim.ts), the turn plan (lib/pipeline/turn-plan.ts),
 * the dispatch (lib/pipeline/dispatch.ts, one handler per kind) and the worker's
 * retries (lib/pipeline/worker.ts) read this table; none works it out again.
 * Media downloads and replays will be entries here.
 */

/** What an envelope's kind is read from: its columns and two metadata flags (lib/db/envelope-metadata.ts). */
export type WorkShape = { to: string; messageId: number | null; forkId: number | null; forkConflict?: boolean; handoff?: boolean };

export type WorkKindSpec = {
  /** What it is, for readers of this table. */
  description: string;
  /**
   * Who takes it: the in-process `worker` (a lease, lib/db/claim.ts), an agent's
   * `reader` (POST /api/v1/envelopes/receive), or `nobody` (written done: a record).
   */
  claimedBy: "worker" | "reader" | "nobody";
  /** Its envelopes in SQL for the claim (LIKE matches Prisma's startsWith); kinds told apart only by metadata share one. Null: never claimed. */
  where: string | null;
  /** How a turn of it is planned: a user's burst (the same session's following messages, one answer) or one envelope alone. */
  batch: "burst" | "alone";
  /** It waits for the burst debounce (quiet time after the user's last message). */
  debounced: boolean;
  /** It calls the model: it waits while a rate limit pauses the provider. */
  needsModel: boolean;
  /** It may be claimed while the model is paused (only what is surely not a model turn in SQL). */
  duringModelPause: boolean;
  /**
   * A run that throws: `backoff` puts it back with backoff up to the attempt limit
   * (a rate limit defers it without counting an attempt); `none`: nothing runs it.
   */
  retry: "backoff" | "none";
};

const AGENT_WITH_MESSAGE = `("to" LIKE 'agent:%' AND "messageId" IS NOT NULL)`;

export const workKinds = {
  user_turn: {
    description: "a user's message for the agent: the model answers it (with the rest of its burst)",
    claimedBy: "worker",
    where: AGENT_WITH_MESSAGE,
    batch: "burst",
    debounced: true,
    needsModel: true,
    duringModelPause: false,
    retry: "backoff",
  },
  fork_conflict_notice: {
    description: "a user's reply to a fork while another fork is open: answered with a fixed notice, no model",
    claimedBy: "worker",
    where: AGENT_WITH_MESSAGE,
    batch: "alone",
    debounced: true,
    needsModel: false,
    duringModelPause: false,
    retry: "backoff",
  },
  background_task: {
    description: "a task for the agent in a conversation (a background fork), now or at deliverAt",
    claimedBy: "worker",
    where: `("to" LIKE 'agent:%' AND "messageId" IS NULL AND "forkId" IS NOT NULL)`,
    batch: "alone",
    debounced: false,
    needsModel: true,
    duringModelPause: false,
    retry: "backoff",
  },
  channel_mail: {
    description: "a message for a chat (an API or operator send, scheduled or now): sent by its adapter",
    claimedBy: "worker",
    where: `("to" LIKE 'channel:%')`,
    batch: "alone",
    debounced: false,
    needsModel: false,
    duringModelPause: true,
    retry: "backoff",
  },
  handoff_notice: {
    description: "a handoff's move (request, take, release), recorded done when the state changes",
    claimedBy: "nobody",
    where: null,
    batch: "alone",
    debounced: false,
    needsModel: false,
    duringModelPause: false,
    retry: "none",
  },
  agent_mail: {
    description: "other mail for an agent or operator: waits for its reader",
    claimedBy: "reader",
    where: null,
    batch: "alone",
    debounced: false,
    needsModel: false,
    duringModelPause: false,
    retry: "none",
  },
} as const satisfies Record<string, WorkKindSpec>;

export type WorkKind = keyof typeof workKinds;
/** The kinds the worker claims and runs: each has a handler in lib/pipeline/dispatch.ts. */
export type WorkerKind = { [K in WorkKind]: (typeof workKinds)[K]["claimedBy"] extends "worker" ? K : never }[WorkKind];

/** An envelope's kind. */
export function workKindOf(e: WorkShape): WorkKind {
  if (e.handoff && !e.to.startsWith("channel:") && e.messageId === null && e.forkId === null) return "handoff_notice";
  if (e.to.startsWith("channel:")) return "channel_mail";
  if (e.to.startsWith("agent:") && e.messageId !== null) return e.forkConflict ? "fork_conflict_notice" : "user_turn";
  if (e.to.startsWith("agent:") && e.forkId !== null) return "background_task";
  return "agent_mail";
}

/** The SQL of the envelopes of every kind that passes `test` (each distinct `where` once). */
export function kindsSql(test: (spec: WorkKindSpec) => boolean): string {
  const specs = Object.values(workKinds as Record<string, WorkKindSpec>).filter((k) => k.claimedBy === "worker" && test(k));
  const wheres = [...new Set(specs.flatMap((k) => (k.where === null ? [] : [k.where])))];
  return wheres.length ? `(${wheres.join(" OR ")})` : "(1 = 0)";
}
