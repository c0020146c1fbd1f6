import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimTurns } from "@/lib/db/claim";
import type { Database } from "@/lib/db/database";
import type { SqlRunner, SqlValue } from "@/lib/db/sql";
import { databases, type TestDb } from "../helpers/db";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const at = (msAgo: number) => new Date(NOW - msAgo);
const CHATS = 400;

/** CHATS private chats, each with four answered envelopes and one waiting message past the debounce. */
async function seed(db: Database) {
  const ids = Array.from({ length: CHATS }, (_, i) => i + 1);
  await db.prisma.conversation.createMany({
    data: ids.map((id) => ({ id, channel: "telegram", platformChatId: String(id), type: "private", updatedAt: at(0) })),
  });
  await db.prisma.message.createMany({
    data: ids.map((id) => ({
      id,
      conversationId: id,
      direction: "inbound",
      senderKind: "user",
      text: "hello",
      platformMessageId: String(id),
      sentAt: at(0),
    })),
  });
  const envelope = { from: "channel:telegram:1", to: "agent:main", text: "hello", metadata: {}, updatedAt: at(0) };
  await db.prisma.envelope.createMany({
    data: ids.flatMap((id) => [
      ...[1, 2, 3, 4].map((h) => ({ ...envelope, conversationId: id, status: "done", createdAt: at(3_600_000 - h) })),
      { ...envelope, conversationId: id, messageId: id, createdAt: at(60_000 - id) },
    ]),
  });
}

type Statement = { text: string; params: SqlValue[] };

/** The claim's statements, as it ran them (text and parameters). */
async function claimStatements(db: Database): Promise<Statement[]> {
  const seen: Statement[] = [];
  const record =
    <K extends "all" | "one" | "run">(sql: SqlRunner, kind: K) =>
    (text: string, ...params: SqlValue[]) => {
      seen.push({ text, params });
      return (sql[kind] as (t: string, ...p: SqlValue[]) => Promise<never>)(text, ...params);
    };
  const traced = {
    ...db,
    transaction: <T>(fn: (sql: SqlRunner) => Promise<T>) =>
      db.transaction((sql) => fn({ dialect: sql.dialect, all: record(sql, "all"), one: record(sql, "one"), run: record(sql, "run") })),
  } as Database;
  const { turns } = await claimTurns(traced, {
    worker: "w",
    now: new Date(NOW),
    leaseMs: 60_000,
    take: 20,
    busy: new Set(),
    served: [],
    channelMailOnly: false,
    quietMs: 1_000,
    plan: (queue) => ({ take: [queue[0]] }),
  });
  expect(turns).toHaveLength(20);
  return seen;
}

const find = (statements: Statement[], marker: string) => {
  const found = statements.filter((s) => s.text.includes(marker));
  expect(found, `a statement with ${marker}`).not.toHaveLength(0);
  return found;
};

/**
 * With many conversations waiting, every statement of the claim reads through an index
 * shaped for it: the per-conversation queue read seeks each candidate's waiting envelopes
 * by (conversationId, status), never every waiting envelope (which cost 4–5 ms at 10,000
 * waiting) nor a conversation's answered history; the claim's UPDATE finds its rows by id.
 */
describe.each(databases)("the claim's query plans on $name", ({ name, open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
    await seed(t.db);
  });
  afterEach(async () => {
    await t.close();
  });

  it.runIf(name === "sqlite")("SQLite: no statement scans Envelope or Conversation, each uses its index", async () => {
    const statements = await claimStatements(t.db);
    const plan = async (s: Statement) =>
      (await t.db.transaction((sql) => sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.text}`, ...s.params))).map((r) => r.detail);
    for (const s of statements) {
      const details = await plan(s);
      expect(
        details.filter((d) => /^SCAN (Envelope|Conversation|c)\b/.test(d)),
        s.text,
      ).toEqual([]);
    }
    for (const queueRead of find(statements, "ROW_NUMBER()")) {
      const details = await plan(queueRead);
      expect(details.some((d) => d.includes("USING INDEX Envelope_conversationId_status_idx (conversationId=? AND status=?)"))).toBe(true);
      expect(details.filter((d) => d.includes("Envelope_status_"))).toEqual([]);
    }
    for (const update of find(statements, `UPDATE "Envelope"`)) {
      const details = await plan(update);
      expect(details.some((d) => d.includes("SEARCH Envelope USING INTEGER PRIMARY KEY (rowid=?)"))).toBe(true);
      expect(details).not.toContain("MULTI-INDEX OR");
    }
    // The candidates: only waiting envelopes up to the horizon, from the (status, createdAt) index.
    const candidates = await plan(find(statements, `GROUP BY COALESCE`)[0]);
    expect(candidates.some((d) => d.includes("Envelope_status_createdAt_idx (status=? AND createdAt<?)"))).toBe(true);
  });

  it.runIf(name === "postgresql")("PostgreSQL: the queue read seeks (conversationId, status); nothing scans Conversation", async () => {
    // As autovacuum does after a load: without statistics the planner guesses every condition matches one row.
    await t.db.transaction((sql) => sql.run(`ANALYZE "Envelope", "Conversation"`));
    const statements = await claimStatements(t.db);
    const plan = async (s: Statement) =>
      t.db.transaction(async (sql) => {
        // The tables are small here: without this the planner would rightly read them whole.
        await sql.all(`SELECT set_config('enable_seqscan', 'off', true)`);
        const rows = await sql.all<{ "QUERY PLAN": string }>(`EXPLAIN ${s.text}`, ...s.params);
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    for (const queueRead of find(statements, "CROSS JOIN LATERAL")) {
      const text = await plan(queueRead);
      expect(text).toContain(`Index Scan using "Envelope_conversationId_status_idx"`);
      expect(text).not.toContain("Envelope_status_");
    }
    for (const s of find(statements, `GROUP BY COALESCE`)) {
      const text = await plan(s);
      expect(text).not.toMatch(/Seq Scan on "Conversation"|Hash Join/);
      expect(text).not.toMatch(/Seq Scan on "Envelope"/);
    }
  });
});
