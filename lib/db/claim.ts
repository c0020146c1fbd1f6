import { kindsSql, workKindOf, type WorkerKind } from "../envelope/work-kinds";
import type { Database } from "./database";
import { inJsonList, jsonList as list, type SqlRunner } from "./sql";

/**
 * The worker's queue queries, all here: which conversations wait longest, the
 * claim of their next turns, putting turns back, and when to look again.
 * What forms a turn (bursts, debounce) is decided by the caller's `plan`.
 */

/** One waiting envelope of a conversation's queue, oldest first. */
export type QueuedEnvelope = {
  id: number;
  to: string;
  messageId: number | null;
  forkId: number | null;
  createdAt: Date;
  deliverAt: Date | null;
  /** Fork conflicts are answered with a notice, alone. */
  forkConflict: boolean;
  /** Part of an album (media group): its turn waits for the album's last part. Absent: not read. */
  mediaGroup?: boolean;
};

/** Take these envelopes as one turn now, or look again at a time (debounce, backoff, rate limit). */
export type QueuePlan = { take: QueuedEnvelope[] } | { waitUntil: Date } | null;

/** An envelope taken over from a worker whose lease on it had run out. */
export type Takeover = { envelopeId: number; conversationId: number | null; from: string | null; leaseUntil: Date };

/** A claimed turn: one or more envelopes of one conversation (a burst), oldest first. */
export type ClaimedTurn = {
  conversationId: number | null;
  /** What work it is (lib/envelope/work-kinds.ts): its handler and retry policy. */
  kind: WorkerKind;
  envelopes: { id: number; to: string; messageId: number | null; forkId: number | null; attempts: number; createdAt: Date }[];
  /** Set by the worker while the turn runs: aborted once another worker holds its envelopes (nothing more is sent). */
  lease?: AbortSignal;
};

export type ClaimOptions = {
  /** Recorded in claimedBy. */
  worker: string;
  now: Date;
  leaseMs: number;
  /** Free slots: at most this many turns. */
  take: number;
  /** Conversations this worker runs right now (never two turns of one conversation). */
  busy: ReadonlySet<number>;
  /** Conversations whose turn just ended here: their wait starts again now (round-robin). */
  served: { conversationId: number; at: Date }[];
  /** Only channel mail (the model is paused by a rate limit: its turns wait). */
  channelMailOnly: boolean;
  /**
   * A user's message is not due before it is this old (the debounce): conversations whose
   * oldest waiting message is younger are not read at all, only woken for. A lower bound:
   * `plan` decides the exact time (a burst that goes on waits longer).
   */
  quietMs: number;
  plan: (queue: QueuedEnvelope[]) => QueuePlan;
};

export type ClaimResult = {
  turns: ClaimedTurn[];
  /** Envelopes claimed here whose earlier claim's lease had run out (its worker died or stalled). */
  takeovers: Takeover[];
  /** The earliest time a turn seen here becomes due (debounce, backoff), or scheduled mail or a lease falls due. */
  wakeAt: Date | null;
};

// Which envelopes the worker claims, which wait for the debounce and which may go while
// the model is paused: the work kinds' table says (lib/envelope/work-kinds.ts).
export const WORKER_MAIL_SQL = kindsSql(() => true);
const CHAT_TURN_SQL = kindsSql((k) => k.debounced);
const DURING_MODEL_PAUSE_SQL = kindsSql((k) => k.duringModelPause);
/** Claimable: pending and due, or claimed by a worker whose lease ran out (it crashed). */
const DUE_SQL = `(("status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ?)) OR ("status" = 'processing' AND "leaseUntil" < ?))`;

/** Conversations where a worker holds a live lease (a turn runs): the end of that turn wakes the worker for them. */
const LEASED_SQL = `SELECT "conversationId" FROM "Envelope" WHERE "status" = 'processing' AND "leaseUntil" >= ? AND "conversationId" IS NOT NULL`;

const toDate = (v: string | Date | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

/** A candidate; for one without a conversation (one envelope), its lapsed lease and holder when it was claimed before. */
type CandidateRow = { key: number; conversationId: number | null; lapsedAt?: string | Date | null; lapsedBy?: string | null };
type QueueRow = {
  id: number;
  conversationId: number;
  to: string;
  status: string;
  messageId: number | null;
  forkId: number | null;
  createdAt: string | Date;
  deliverAt: string | Date | null;
  leaseUntil: string | Date | null;
  claimedBy: string | null;
  forkConflict: number | boolean | null;
  mediaGroup: number | boolean | null;
};

/**
 * Claims the next turns, in one transaction, fairly: conversations are taken
 * oldest wait first, where a conversation's wait counts from the later of its
 * oldest waiting envelope and the end of its last turn (`servedAt`), so one with
 * hundreds queued, or a busy group, takes turns with quiet chats instead of going
 * first every time. One turn per conversation: none is claimed while any worker
 * holds a live lease in it. On PostgreSQL each conversation is taken under a
 * transaction-scoped advisory lock tried without waiting, so two instances claim
 * disjoint conversations (the other's are skipped, like SKIP LOCKED); SQLite
 * has one writer, so its transactions are serial already.
 */
export async function claimTurns(db: Database, o: ClaimOptions): Promise<ClaimResult> {
  return db.transaction(async (sql) => {
    const { now } = o;
    // Lock order (PostgreSQL): Conversation rows in ascending id, then Envelope rows in
    // ascending id. Two instances' claims list the same conversations in the order their
    // turns ended, which differ; in that order they deadlocked (40P01).
    const served = new Map<number, Date>();
    for (const { conversationId, at } of o.served) {
      const seen = served.get(conversationId);
      if (!seen || at > seen) served.set(conversationId, at);
    }
    for (const [conversationId, at] of [...served].sort((x, y) => x[0] - y[0])) {
      await sql.run(`UPDATE "Conversation" SET "servedAt" = ? WHERE "id" = ?`, at, conversationId);
    }
    const quietSince = new Date(now.getTime() - o.quietMs);
    const result: ClaimResult = { turns: [], takeovers: [], wakeAt: await nextWake(sql, now, o.channelMailOnly, o.quietMs) };
    const wake = (at: Date) => {
      if (!result.wakeAt || at < result.wakeAt) result.wakeAt = at;
    };
    if (o.take <= 0) return result;

    // Conversations (or single envelopes without one) with something due, oldest wait first.
    // Those where any worker holds a live lease are left out: each runs one turn at a time.
    // Conversations running here hold live leases, so the read leaves them out already; a few may
    // just have ended their envelopes and still be finishing here (skipped below). Counting every
    // running turn in the limit made each claim read (and lock) a queue per running conversation:
    // with a thousand turns waiting on the model, a thousand queues for every few turns taken.
    const limit = o.take + Math.min(o.busy.size, o.take) + 32;
    const candidates = await readCandidates(sql, o, limit, quietSince);
    const conversations = candidates.flatMap((c) => (c.conversationId !== null && !o.busy.has(c.conversationId) ? [c.conversationId] : []));
    // On PostgreSQL only the conversations this transaction could lock have a queue here.
    const queues = await readQueues(sql, conversations, now);

    const claim: { conversationId: number | null; ids: number[]; kind: WorkerKind | null }[] = [];
    // What each envelope's lapsed claim was, read with the queue: the update below tells a takeover from a first claim by it.
    const lapsed = new Map<number, Takeover>();
    for (const c of candidates) {
      if (claim.length >= o.take) break;
      if (c.conversationId === null) {
        claim.push({ conversationId: null, ids: [-c.key], kind: null });
        const leaseUntil = toDate(c.lapsedAt ?? null);
        if (leaseUntil) lapsed.set(-c.key, { envelopeId: -c.key, conversationId: null, from: c.lapsedBy ?? null, leaseUntil });
        continue;
      }
      const queue = queues.get(c.conversationId);
      if (!queue || queue.some((r) => r.status === "processing" && toDate(r.leaseUntil)! >= now)) continue;
      const plan = o.plan(
        queue.map((r) => ({
          id: r.id,
          to: r.to,
          messageId: r.messageId,
          forkId: r.forkId,
          createdAt: toDate(r.createdAt)!,
          deliverAt: toDate(r.deliverAt),
          forkConflict: Boolean(r.forkConflict),
          mediaGroup: Boolean(r.mediaGroup),
        })),
      );
      if (!plan) continue;
      if ("waitUntil" in plan) wake(plan.waitUntil);
      else {
        claim.push({ conversationId: c.conversationId, ids: plan.take.map((e) => e.id), kind: workerKindOf(plan.take[0]) });
        for (const r of queue)
          if (r.status === "processing" && plan.take.some((e) => e.id === r.id))
            lapsed.set(r.id, { envelopeId: r.id, conversationId: r.conversationId, from: r.claimedBy, leaseUntil: toDate(r.leaseUntil)! });
      }
    }
    if (claim.length === 0) return result;

    // On PostgreSQL the rows are locked first, in id order (an UPDATE locks them in whatever order its plan reads them).
    const ids = claim.flatMap((c) => c.ids);
    const claimed = await sql.all<{
      id: number;
      to: string;
      messageId: number | null;
      forkId: number | null;
      attempts: number;
      createdAt: string | Date;
    }>(
      `UPDATE "Envelope"${sql.dialect === "sqlite" ? " NOT INDEXED" : ""} SET "status" = 'processing', "claimedBy" = ?, "leaseUntil" = ?, "attempts" = "attempts" + 1, "updatedAt" = ?
       WHERE ${
         sql.dialect === "postgresql"
           ? `"id" IN (SELECT "id" FROM "Envelope" WHERE ${inJsonList(sql, `"id"`)} AND ${DUE_SQL} ORDER BY "id" FOR NO KEY UPDATE)`
           : inJsonList(sql, `"id"`)
       } AND ${DUE_SQL}
       RETURNING "id", "to", "messageId", "forkId", "attempts", "createdAt"`,
      o.worker,
      new Date(now.getTime() + o.leaseMs),
      now,
      ...(sql.dialect === "postgresql" ? [list(ids), now, now] : [list(ids)]),
      now,
      now,
    );
    const byId = new Map(claimed.map((e) => [e.id, { ...e, createdAt: toDate(e.createdAt)! }]));
    // A lapsed row the update took is a takeover (one renewed meanwhile was not due, so not taken).
    for (const e of claimed) {
      const takeover = lapsed.get(e.id);
      if (takeover) result.takeovers.push(takeover);
    }
    for (const c of claim) {
      const envelopes = c.ids.map((id) => byId.get(id)).filter((e) => e !== undefined);
      if (envelopes.length) result.turns.push({ conversationId: c.conversationId, kind: c.kind ?? workerKindOf(envelopes[0]), envelopes });
    }
    return result;
  });
}

/** Each candidate conversation's queue, oldest first (live leases included, to re-check under the lock). */
async function readQueues(sql: SqlRunner, conversations: number[], now: Date): Promise<Map<number, QueueRow[]>> {
  // forkConflict and mediaGroup as lib/db/envelope-metadata.ts reads them: only a JSON true is the flag.
  const columns = `"id", "conversationId", "to", "status", "messageId", "forkId", "createdAt", "deliverAt", "leaseUntil", "claimedBy",
    ${sql.dialect === "sqlite" ? `json_type("metadata", '$.forkConflict') = 'true'` : `CAST("metadata"->'forkConflict' = 'true'::jsonb AS int)`} AS "forkConflict",
    ${sql.dialect === "sqlite" ? `json_type("metadata", '$.mediaGroup') = 'true'` : `CAST("metadata"->'mediaGroup' = 'true'::jsonb AS int)`} AS "mediaGroup"`;
  // A conversation's waiting envelopes only, sought by (conversationId, status): never every
  // waiting envelope, nor the conversation's answered history.
  const waiting = `"status" IN ('pending', 'processing') AND ${WORKER_MAIL_SQL}
    AND (("status" = 'pending' AND ("deliverAt" IS NULL OR "deliverAt" <= ? OR ${CHAT_TURN_SQL})) OR ("status" = 'processing' AND "leaseUntil" IS NOT NULL))`;
  const rows = !conversations.length
    ? []
    : sql.dialect === "postgresql"
      ? // One seek per conversation, in the same statement as its lock: a conversation another
        // instance is claiming right now (its transaction-scoped advisory lock, tried without
        // waiting) is skipped, like SKIP LOCKED; the lock ends with this transaction.
        await sql.all<QueueRow>(
          `WITH "locked" AS MATERIALIZED (
             SELECT t."id" FROM (SELECT CAST(jsonb_array_elements_text(CAST(? AS jsonb)) AS int) AS "id") t WHERE pg_try_advisory_xact_lock(7301, t."id")
           )
           SELECT e.* FROM "locked" l CROSS JOIN LATERAL (
             SELECT ${columns} FROM "Envelope" WHERE "conversationId" = l."id" AND ${waiting} ORDER BY "id" LIMIT ?
           ) e ORDER BY e."conversationId", e."id"`,
          list(conversations),
          now,
          QUEUE_ROWS,
        )
      : // SQLite has no LATERAL, and without statistics it would read every waiting envelope by status.
        await sql.all<QueueRow>(
          `SELECT * FROM (
             SELECT ${columns}, ROW_NUMBER() OVER (PARTITION BY "conversationId" ORDER BY "id") AS "n"
             FROM "Envelope" INDEXED BY "Envelope_conversationId_status_idx"
             WHERE ${inJsonList(sql, `"conversationId"`)} AND ${waiting}
           ) q WHERE "n" <= ? ORDER BY "conversationId", "id"`,
          list(conversations),
          now,
          QUEUE_ROWS,
        );
  const queues = new Map<number, QueueRow[]>();
  for (const row of rows) {
    const queue = queues.get(row.conversationId);
    if (queue) queue.push(row);
    else queues.set(row.conversationId, [row]);
  }
  return queues;
}

/** The most envelopes of one conversation's queue the claim reads (a turn is planned from its head). */
const QUEUE_ROWS = 64;

/** The kind of an envelope the claim selected: always one the worker runs. */
function workerKindOf(e: Parameters<typeof workKindOf>[0]): WorkerKind {
  const kind = workKindOf(e);
  if (kind === "handoff_notice" || kind === "agent_mail") throw new Error(`envelope of kind ${kind} claimed by the worker`);
  return kind;
}

type WaitingRow = CandidateRow & { waitKey: string | Date; horizon?: string | Date | null };

/** How many waiting envelopes, per candidate wanted, the bounded read looks at before it gives up for the full one. */
const HORIZON_ROWS_PER_CANDIDATE = 4;

/**
 * The `limit` conversations that waited longest. A conversation's wait starts at the
 * later of its oldest due envelope and its last turn's end, so it is never earlier
 * than its oldest envelope's arrival: when the `limit` smallest waits found among
 * the envelopes up to a horizon (the createdAt of the Nth oldest waiting one, read
 * from the `(status, createdAt)` index) all started by that horizon, no conversation
 * whose envelopes all came later can wait longer, and the answer is exact. Reading
 * only those rows keeps the claim's cost flat however deep the queue (10,000 waiting
 * read as many rows as 100 do). When the horizon is inside the debounce (a short
 * queue) or too few waits fit under it, the whole queue is read, as before.
 */
async function readCandidates(sql: SqlRunner, o: ClaimOptions, limit: number, quietSince: Date): Promise<CandidateRow[]> {
  // The horizon is read in the same statement (one round trip fewer). It is null when fewer
  // envelopes wait than it counts: then that statement read them all, and its answer is the whole one.
  const rows = await waitingConversations(sql, o, limit, quietSince, limit * HORIZON_ROWS_PER_CANDIDATE);
  if (rows.length === 0 || rows[0].horizon === null) return rows;
  const horizon = toDate(rows[0].horizon ?? null);
  const last = rows.at(-1);
  if (horizon && horizon <= quietSince && rows.length === limit && last && toDate(last.waitKey)! <= horizon) return rows;
  return waitingConversations(sql, o, limit, quietSince, null);
}

/**
 * The end of a candidate's last turn, looked up by key for each candidate: a join let
 * PostgreSQL hash every conversation (a scan of the table) to match a few hundred.
 */
const SERVED_AT = `(SELECT c."servedAt" FROM "Conversation" c WHERE c."id" = q."conversationId")`;

/** Later than any envelope: the horizon of a queue shorter than the horizon's count. */
const END_OF_TIME = new Date("9999-12-31T00:00:00Z");

/** Conversations with something due, oldest wait first; with a horizon, only waiting envelopes that arrived by then are read. */
function waitingConversations(sql: SqlRunner, o: ClaimOptions, limit: number, quietSince: Date, horizonOffset: number | null) {
  const { now } = o;
  const due =
    horizonOffset !== null
      ? `(("status" = 'pending' AND "createdAt" <= COALESCE((SELECT "at" FROM "h"), ?) AND ("deliverAt" IS NULL OR "deliverAt" <= ?)) OR ("status" = 'processing' AND "leaseUntil" < ?))`
      : DUE_SQL;
  return sql.all<WaitingRow>(
    `${horizonOffset !== null ? `WITH "h" AS (SELECT "createdAt" AS "at" FROM "Envelope" WHERE "status" = 'pending' ORDER BY "createdAt" LIMIT 1 OFFSET ?) ` : ""}SELECT q."key", q."conversationId", ${
      sql.dialect === "sqlite" ? `MAX(q."arrived", COALESCE(${SERVED_AT}, q."arrived"))` : `GREATEST(q."arrived", ${SERVED_AT})`
    } AS "waitKey", q."lapsedAt", q."lapsedBy"${horizonOffset !== null ? `, (SELECT "at" FROM "h") AS "horizon"` : ""} FROM (
       SELECT COALESCE("conversationId", -"id") AS "key", MAX("conversationId") AS "conversationId", MIN("id") AS "head", MIN("createdAt") AS "arrived",
         MAX(CASE WHEN "status" = 'processing' THEN "leaseUntil" END) AS "lapsedAt", MAX(CASE WHEN "status" = 'processing' THEN "claimedBy" END) AS "lapsedBy"
       FROM "Envelope"
       WHERE ${due} AND ${o.channelMailOnly ? DURING_MODEL_PAUSE_SQL : WORKER_MAIL_SQL}
         AND ("conversationId" IS NULL OR "conversationId" NOT IN (${LEASED_SQL}))
       GROUP BY COALESCE("conversationId", -"id")
       HAVING MAX(CASE WHEN ${CHAT_TURN_SQL} THEN 0 ELSE 1 END) = 1 OR MIN("createdAt") <= ?
     ) q
     ORDER BY "waitKey", q."head"
     LIMIT ?`,
    ...(horizonOffset !== null ? [horizonOffset, END_OF_TIME, now, now] : [now, now]),
    now,
    quietSince,
    limit,
  );
}

/**
 * For the worker's timer: the soonest future deliverAt of worker mail, lease expiry,
 * or end of the quiet time of a user's message the claim did not read yet (in a
 * conversation with no turn running: one that has wakes the worker when it ends).
 * The quiet time's end is the first such message in `(status, createdAt)` order: an
 * index walk from the debounce's start, not a scan of every waiting envelope.
 */
async function nextWake(sql: SqlRunner, now: Date, channelMailOnly: boolean, quietMs: number): Promise<Date | null> {
  const row = await sql.one<{ at: string | Date | null; quiet: string | Date | null }>(
    `SELECT (SELECT MIN("at") FROM (
         SELECT MIN("deliverAt") AS "at" FROM "Envelope" WHERE "status" = 'pending' AND "deliverAt" > ? AND ${channelMailOnly ? DURING_MODEL_PAUSE_SQL : WORKER_MAIL_SQL}
         UNION ALL SELECT MIN("leaseUntil") AS "at" FROM "Envelope" WHERE "status" = 'processing' AND "leaseUntil" > ?
       ) t) AS "at",
       (SELECT "createdAt" FROM "Envelope" WHERE "status" = 'pending' AND ${CHAT_TURN_SQL} AND "createdAt" > ?
          AND "conversationId" NOT IN (${LEASED_SQL}) ORDER BY "createdAt" LIMIT 1) AS "quiet"`,
    now,
    now,
    new Date(now.getTime() - quietMs),
    now,
  );
  const quiet = toDate(row?.quiet ?? null);
  const at = [toDate(row?.at ?? null), quiet && new Date(quiet.getTime() + quietMs)].filter((d): d is Date => d !== null);
  return at.length ? new Date(Math.min(...at.map((d) => d.getTime()))) : null;
}

/**
 * Puts a claimed turn back for later without counting the attempt (the provider
 * rate-limited us: not the envelopes' fault).
 */
export async function deferEnvelopes(db: Database, ids: number[], until: Date, reason: string) {
  await db.transaction((sql) =>
    sql.run(
      `UPDATE "Envelope" SET "status" = 'pending', "deliverAt" = ?, "attempts" = CASE WHEN "attempts" > 0 THEN "attempts" - 1 ELSE 0 END,
         "lastDeliveryError" = ?, "claimedBy" = NULL, "leaseUntil" = NULL, "updatedAt" = ?
       WHERE ${inJsonList(sql, `"id"`)} AND "status" = 'processing'`,
      until,
      reason,
      new Date(),
      list(ids),
    ),
  );
}

/**
 * The worker's heartbeat: extends the leases it holds, so a long turn (a slow model,
 * a queue for model slots) is never taken over, and says which of `held` (the
 * envelopes of its running turns) another worker holds now: their lease ran out
 * before this renewal (the process stalled) and they were taken over.
 */
export async function renewLeases(db: Database, worker: string, until: Date, held: number[]): Promise<number[]> {
  return db.transaction(async (sql) => {
    await (sql.dialect === "postgresql"
      ? // Never waits for a row lock, so it cannot deadlock with a turn finishing a burst: a row
        // locked right now is being finished (or taken over), and the next renewal comes in a third of a lease.
        sql.run(
          `UPDATE "Envelope" SET "leaseUntil" = ? WHERE "id" IN (
             SELECT "id" FROM "Envelope" WHERE "claimedBy" = ? AND "status" = 'processing' FOR NO KEY UPDATE SKIP LOCKED)
           AND "claimedBy" = ? AND "status" = 'processing'`,
          until,
          worker,
          worker,
        )
      : sql.run(`UPDATE "Envelope" SET "leaseUntil" = ? WHERE "claimedBy" = ? AND "status" = 'processing'`, until, worker));
    if (!held.length) return [];
    const lost = await sql.all<{ id: number }>(
      `SELECT "id" FROM "Envelope" WHERE ${inJsonList(sql, `"id"`)} AND "claimedBy" <> ?`,
      list(held),
      worker,
    );
    return lost.map((r) => r.id);
  });
}

/** Whether any worker mail is due by `horizon` (tests and shutdown wait for an idle queue). */
export async function hasDueWork(db: Database, horizon: Date): Promise<boolean> {
  const row = await db.transaction((sql) =>
    sql.one(`SELECT "id" FROM "Envelope" WHERE ${DUE_SQL} AND ${WORKER_MAIL_SQL} LIMIT 1`, horizon, horizon),
  );
  return row !== undefined;
}
