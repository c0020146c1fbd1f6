import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claimTurns } from "../lib/db/claim";
import { openDb, type Database } from "../lib/db/database";
import { migrate } from "../lib/db/migrations.mjs";
import type { SqlRunner } from "../lib/db/sql";
import { numberedPlaceholders, postgresValue, sqliteValue } from "../lib/db/sql";
import { benchPostgres } from "./postgres.ts";
const N = Number(process.env.N ?? 10000);
const seedMod = await import("./claim-query-seed.tmp.mts");

function traced(db: Database, log: { sql: string; params: unknown[]; ms: number }[]): Database {
  return { ...db, transaction: (fn: (s: SqlRunner) => Promise<unknown>) => db.transaction((sql) => fn({
    dialect: sql.dialect,
    all: async (q, ...p) => { const t = performance.now(); const r = await sql.all(q, ...p); log.push({ sql: q, params: p, ms: performance.now() - t }); return r; },
    one: async (q, ...p) => { const t = performance.now(); const r = await sql.one(q, ...p); log.push({ sql: q, params: p, ms: performance.now() - t }); return r; },
    run: async (q, ...p) => { const t = performance.now(); const r = await sql.run(q, ...p); log.push({ sql: q, params: p, ms: performance.now() - t }); return r; },
  })) } as Database;
}
async function go(url: string, pgq?: (s: string) => Promise<unknown[]>) {
  const db = await openDb(url);
  await seedMod.seed(db, N, 1, 4);
  if (db.dialect === "postgresql") await db.transaction((sql) => sql.run(`ANALYZE "Envelope", "Conversation"`));
  for (let round = 0; round < 3; round++) {
    const log: { sql: string; params: unknown[]; ms: number }[] = [];
    const t = performance.now();
    const r = await claimTurns(traced(db, log), { worker: "b", now: new Date(), leaseMs: 60000, take: 50, busy: new Set(), served: [], channelMailOnly: false, quietMs: 1000, plan: (q) => ({ take: [q[0]] }) });
    const total = performance.now() - t;
    await db.transaction((sql) => sql.run(`UPDATE "Envelope" SET "status"='pending', "claimedBy"=NULL, "leaseUntil"=NULL WHERE "status"='processing'`));
    console.log(`${db.dialect} round ${round}: ${total.toFixed(2)} ms, turns ${r.turns.length}`);
    for (const l of log) console.log(`  ${l.ms.toFixed(2)} ms  ${l.sql.replace(/\s+/g, " ").slice(0, 110)}`);
    if (round === 2) for (const l of log) {
      if (db.dialect === "sqlite") {
        const plan = await db.transaction((sql) => sql.all(`EXPLAIN QUERY PLAN ${l.sql}`, ...l.params));
        console.log("---", l.sql.replace(/\s+/g, " ").slice(0, 80)); for (const p of plan as any[]) console.log("   ", p.detail);
      } else if (pgq) {
        const text = numberedPlaceholders(l.sql); let i = 0;
        const vals = l.params.map(postgresValue);
        const inl = text.replace(/\$(\d+)/g, (_, n) => { const v = vals[Number(n) - 1]; return v === null ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`; });
        await pgq(`SET search_path TO $schema`); await pgq(`SET plan_cache_mode = force_generic_plan`); await pgq(`DEALLOCATE ALL`); await pgq(`PREPARE p AS ${text}`); const lits = vals.map((v) => v === null ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`).join(", "); const plan = await pgq(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE p${lits ? `(${lits})` : ""}`).catch((e) => [{ "QUERY PLAN": String(e) }]);
        console.log("---", l.sql.replace(/\s+/g, " ").slice(0, 80)); for (const p of plan as any[]) console.log("   ", p["QUERY PLAN"]);
      }
    }
  }
  await db.close();
}
if (!process.env.PGONLY) { const dir = mkdtempSync(join(tmpdir(), "ct-")); const url = `file:${join(dir, "c.db")}`; await migrate(url); await go(url); }
if (!process.env.SQLITEONLY) { const pg = (await benchPostgres())!; try { await go(pg.url, pg.query as any); } finally { await pg.drop(); } }
