// The worker's claim with a deep queue: 10,000 conversations each with one waiting
// chat message (and four answered ones before it), and 20 chats with 2,000
// answered envelopes each, on SQLite and on PostgreSQL. Measures one claim
// transaction (the queue read, the advisory locks on PostgreSQL, the UPDATE of
// the claimed rows), each claim's rows put back afterwards (untimed). The baseline
// is the same claim with 100 waiting, so the ratio says what the queue's depth
// or the chats' history costs. Each figure is also given for the claim's reads alone (every
// statement but the UPDATE of the claimed rows: the "queue read" of issue #33).
// BENCH_CLAIM_EXPLAIN=1 lists the Envelope indexes.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claimTurns } from "../lib/db/claim";
import { openDb, type Database } from "../lib/db/database";
import type { SqlRunner, SqlValue } from "../lib/db/sql";
import { migrate } from "../lib/db/migrations.mjs";
import { benchPostgres, POSTGRES_SKIPPED } from "./postgres.ts";
import { report } from "./stats.ts";

const WAITING = Number(process.env.BENCH_CLAIM_WAITING ?? 10_000);
const SHALLOW = 100;
const HISTORY = 4;
const TAKE = 50;
/** Long histories: a few chats with thousands of answered envelopes each (the queue read must not walk them). */
const LONG_CHATS = 20;
const LONG_HISTORY = 2_000;
/** Turns running here at once (the default WORKER_CONCURRENCY lets a thousand wait on the model). */
const RUNNING = 1_000;

async function seed(db: Database, conversations: number, offset: number, history = HISTORY) {
  const now = Date.now();
  const at = (ms: number) => new Date(now - ms);
  const ids = Array.from({ length: conversations }, (_, i) => offset + i);
  for (let i = 0; i < ids.length; i += 2_000) {
    const chunk = ids.slice(i, i + 2_000);
    await db.prisma.conversation.createMany({
      data: chunk.map((n) => ({ id: n, channel: "telegram", platformChatId: String(n), type: "private", updatedAt: at(0) })),
    });
    await db.prisma.message.createMany({
      data: chunk.map((n) => ({
        id: n,
        conversationId: n,
        direction: "inbound",
        senderKind: "user",
        text: "hello",
        platformMessageId: String(n),
        sentAt: at(10_000),
      })),
    });
    await db.prisma.envelope.createMany({
      data: chunk.flatMap((n, k) => [
        ...Array.from({ length: history }, (_, h) => ({
          from: `channel:telegram:${n}`,
          to: "agent:main",
          status: "done",
          text: "earlier",
          conversationId: n,
          metadata: {},
          createdAt: at(3_600_000 - h),
          updatedAt: at(0),
          doneAt: at(0),
        })),
        {
          from: `channel:telegram:${n}`,
          to: "agent:main",
          status: "pending",
          text: "hello",
          conversationId: n,
          messageId: n,
          metadata: {},
          // Out of the debounce, oldest first in conversation order.
          createdAt: at(60_000 - (i + k)),
          updatedAt: at(0),
        },
      ]),
    });
  }
}

/** Time spent in the claim's reads (every statement but its UPDATE of the claimed rows), per claim. */
let readMs = 0;

/** The database with each statement of a transaction timed: the reads' share goes to `readMs`. */
function timedReads(db: Database): Database {
  const timed =
    (sql: SqlRunner, kind: "all" | "one" | "run") =>
    async (text: string, ...params: SqlValue[]) => {
      const started = performance.now();
      try {
        return await (sql[kind] as (t: string, ...p: SqlValue[]) => Promise<never>)(text, ...params);
      } finally {
        if (!/^\s*UPDATE/.test(text)) readMs += performance.now() - started;
      }
    };
  return {
    ...db,
    transaction: <T,>(fn: (sql: SqlRunner) => Promise<T>) =>
      db.transaction((sql) => fn({ dialect: sql.dialect, all: timed(sql, "all"), one: timed(sql, "one"), run: timed(sql, "run") })),
  } as Database;
}

/** One claim of up to `take` turns; its rows go back to pending afterwards (not timed). */
async function claimOnce(db: Database, take: number, busy: ReadonlySet<number>) {
  const result = await claimTurns(timedReads(db), {
    worker: "bench",
    now: new Date(),
    leaseMs: 60_000,
    take,
    busy,
    served: [],
    channelMailOnly: false,
    quietMs: 1_000,
    plan: (queue) => ({ take: [queue[0]] }),
  });
  return result.turns.flatMap((t) => t.envelopes.map((e) => e.id));
}

async function reset(db: Database) {
  await db.transaction((sql) =>
    sql.run(
      `UPDATE "Envelope" SET "status" = 'pending', "claimedBy" = NULL, "leaseUntil" = NULL, "attempts" = 0 WHERE "status" = 'processing' AND "claimedBy" = 'bench'`,
    ),
  );
}

/** The application name this process's PostgreSQL connections carry (read when each connects), to find their backends. */
const APP = `sb-claim-bench-${process.pid}`;
process.env.PGAPPNAME = APP;

/** CPU time (ms) a process has used, from /proc/<pid>/schedstat (nanoseconds, unlike /proc/<pid>/stat's 10 ms ticks). */
function schedMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return 0;
  }
}

/**
 * p50 of 30 claims (after 5 to warm up), each claim's rows put back before the next: the
 * whole claim and its reads (wall clock), and the CPU one claim costs (this process, which
 * holds SQLite, and on PostgreSQL its backends, found by application name): on a loaded
 * machine the wall clock mostly measures waiting for a core, the CPU time hardly moves.
 */
async function measure(db: Database, query?: (sql: string) => Promise<unknown[]>, busy: ReadonlySet<number> = new Set()) {
  const samples: number[] = [];
  const reads: number[] = [];
  const cpu: number[] = [];
  const dbCpu: number[] = [];
  let backends: number[] = [];
  for (let i = 0; i < 35; i++) {
    if (i === 5 && query)
      backends = (
        (await query(`SELECT pid FROM pg_stat_activity WHERE application_name = '${APP}' AND pid <> pg_backend_pid()`)) as { pid: number }[]
      ).map((r) => r.pid);
    readMs = 0;
    const backendsBefore = backends.reduce((a, p) => a + schedMs(p), 0);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const ids = await claimOnce(db, TAKE, busy);
    if (i >= 5) {
      samples.push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
      dbCpu.push(backends.reduce((a, p) => a + schedMs(p), 0) - backendsBefore);
      reads.push(readMs);
    }
    if (ids.length === 0) throw new Error("the claim took nothing");
    await reset(db);
  }
  const p50 = (v: number[]) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return { claim: p50(samples), read: p50(reads), cpu: p50(cpu), dbCpu: p50(dbCpu) };
}

async function run(
  name: string,
  openAt: () => Promise<{ url: string; done: () => Promise<void>; query?: (sql: string) => Promise<unknown[]> }>,
) {
  const results: Record<string, { claim: number; read: number; cpu: number; dbCpu: number }> = {};
  type Shape = { key: string; conversations: number; history: number; running?: number };
  const shapes: Shape[] = [
    { key: "shallow", conversations: SHALLOW, history: HISTORY },
    { key: "deep", conversations: WAITING, history: HISTORY },
    { key: "long", conversations: LONG_CHATS, history: LONG_HISTORY },
    { key: "running", conversations: WAITING, history: HISTORY, running: RUNNING },
  ];
  for (const shape of shapes) {
    const target = await openAt();
    const db = await openDb(target.url);
    try {
      await seed(db, shape.conversations, 1, shape.history);
      // As autovacuum would after a load this size: without statistics PostgreSQL plans blind.
      if (db.dialect === "postgresql") await db.transaction((sql) => sql.run(`ANALYZE "Envelope", "Conversation"`));
      if (process.env.BENCH_CLAIM_EXPLAIN) await explain(db);
      // Turns running here (waiting on the model): their conversations leased by this worker.
      const busy = new Set(Array.from({ length: shape.running ?? 0 }, (_, i) => i + 1));
      if (busy.size)
        await db.transaction((sql) =>
          sql.run(
            `UPDATE "Envelope" SET "status" = 'processing', "claimedBy" = 'running', "leaseUntil" = ? WHERE "status" = 'pending' AND "conversationId" <= ?`,
            new Date(Date.now() + 3_600_000),
            busy.size,
          ),
        );
      results[shape.key] = await measure(db, target.query, busy);
    } finally {
      await db.close();
      await target.done();
    }
  }
  const ms = (v: number) => Math.round(v * 1000) / 1000;
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const cpuCase = (key: "deep" | "long") => {
    const base = results.shallow.cpu + results.shallow.dbCpu;
    const value = results[key].cpu + results[key].dbCpu;
    report({
      bench: "claim",
      case: `${name}: CPU of one claim of ${key === "deep" ? `${TAKE} turns with ${WAITING.toLocaleString("en")} conversations waiting` : `${LONG_CHATS} turns, each chat with ${LONG_HISTORY.toLocaleString("en")} answered envelopes`}`,
      metric: "p50 CPU",
      value: ms(value),
      unit: "ms",
      baseline: ms(base),
      ratio: ratio(value, base),
      note: `baseline: the same claim of ${TAKE} turns with ${SHALLOW} waiting; this process ${ms(results[key].cpu)} ms${name === "PostgreSQL" ? ` + its PostgreSQL backends ${ms(results[key].dbCpu)} ms` : " (SQLite runs in it)"}; baseline ${ms(results.shallow.cpu)}${name === "PostgreSQL" ? ` + ${ms(results.shallow.dbCpu)}` : ""} ms`,
    });
  };
  cpuCase("deep");
  cpuCase("long");
  report({
    bench: "claim",
    case: `${name}: CPU of one claim of ${TAKE} turns with ${WAITING.toLocaleString("en")} conversations waiting and ${RUNNING.toLocaleString("en")} turns running here`,
    metric: "p50 CPU",
    value: ms(results.running.cpu + results.running.dbCpu),
    unit: "ms",
    baseline: ms(results.deep.cpu + results.deep.dbCpu),
    ratio: ratio(results.running.cpu + results.running.dbCpu, results.deep.cpu + results.deep.dbCpu),
    note: `baseline: the same with no turn running; whole claim ${ms(results.running.claim)} ms, its reads ${ms(results.running.read)} ms`,
  });
  for (const part of ["claim", "read"] as const) {
    const what = part === "claim" ? "claim" : "queue read (the claim's statements but its UPDATE)";
    report({
      bench: "claim",
      case: `${name}: ${what} of ${TAKE} turns with ${WAITING.toLocaleString("en")} conversations waiting`,
      metric: "p50",
      value: ms(results.deep[part]),
      unit: "ms",
      baseline: ms(results.shallow[part]),
      ratio: ratio(results.deep[part], results.shallow[part]),
      ...(part === "read" ? { target: "well under 1 ms", met: results.deep.read < 1 } : {}),
      note: `baseline: the same with ${SHALLOW} waiting; each conversation also holds ${HISTORY} answered envelopes; 30 claims, each put back (untimed); whole claim ${ms(results.deep.claim)} ms, its reads ${ms(results.deep.read)} ms`,
    });
    report({
      bench: "claim",
      case: `${name}: ${what} of ${LONG_CHATS} turns, each chat with ${LONG_HISTORY.toLocaleString("en")} answered envelopes`,
      metric: "p50",
      value: ms(results.long[part]),
      unit: "ms",
      baseline: ms(results.shallow[part]),
      ratio: ratio(results.long[part], results.shallow[part]),
      note: `baseline: the same for ${TAKE} turns with ${SHALLOW} waiting, ${HISTORY} answered envelopes each`,
    });
  }
}

async function explain(db: Database) {
  // The claim's statements are not exported; the engine's own statistics (pg_stat_statements) are the better tool.
  const rows = await db.transaction((sql) =>
    sql.dialect === "sqlite"
      ? sql.all(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Envelope'`)
      : sql.all(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'Envelope'`),
  );
  console.error(`${db.dialect} Envelope indexes: ${rows.map((r) => (r as { name: string }).name).join(", ")}`);
}

const dir = mkdtempSync(join(tmpdir(), "bench-claim-"));
let n = 0;
try {
  await run("SQLite", async () => {
    const url = `file:${join(dir, `claim-${n++}.db`)}`;
    await migrate(url);
    return { url, done: async () => {} };
  });
  const first = await benchPostgres();
  if (!first) console.error(POSTGRES_SKIPPED);
  else {
    await first.drop();
    await run("PostgreSQL", async () => {
      const pg = (await benchPostgres())!;
      return { url: pg.url, done: pg.drop, query: pg.query };
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
