import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimTurns } from "@/lib/db/claim";
import { postgresTarget } from "@/lib/db/migrations.mjs";
import { planTurn } from "@/lib/pipeline/turn-plan";
import { POSTGRES_SKIP_REASON, hasPostgres, postgresTestDb, type TestDb } from "../helpers/db";

/**
 * Two instances' claims lock Conversation rows (servedAt) for the turns that just
 * ended, listed in the order those turns ended, which differs between instances.
 * In that order they deadlocked (CI logged `worker.drain_failed: deadlock detected`).
 * Here the other instance is a transaction that locks the same two rows in
 * ascending id order; the claim must take them in the same order, so it waits
 * instead of closing a cycle.
 */
describe.skipIf(!hasPostgres)(`claim lock order on PostgreSQL${hasPostgres ? "" : ` (${POSTGRES_SKIP_REASON})`}`, () => {
  let t: TestDb;
  let other: pg.Client;
  let watcher: pg.Client;
  beforeAll(async () => {
    t = await postgresTestDb();
    const { connectionString, schema } = postgresTarget(t.url);
    other = new pg.Client({ connectionString });
    watcher = new pg.Client({ connectionString });
    await Promise.all([other.connect(), watcher.connect()]);
    await other.query(`SET search_path TO "${schema}"`);
  });
  afterAll(async () => {
    await other.end();
    await watcher.end();
    await t.close();
  });

  it("locks served conversations in ascending id order, whatever order their turns ended in", async () => {
    const ids: number[] = [];
    for (const chat of ["a", "b"]) {
      const c = await t.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: chat, type: "private" } });
      ids.push(c.id);
    }
    const [x, y] = ids.sort((p, q) => p - q);
    const now = new Date();

    await other.query("BEGIN");
    await other.query(`UPDATE "Conversation" SET "updatedAt" = now() WHERE "id" = $1`, [x]);
    // The claim's turns ended y first, then x.
    const claim = claimTurns(t.db, {
      worker: "w1",
      now,
      leaseMs: 10_000,
      take: 0,
      busy: new Set(),
      served: [
        { conversationId: y, at: now },
        { conversationId: x, at: now },
      ],
      channelMailOnly: false,
      quietMs: 0,
      plan: (queue) => planTurn(queue, { now, debounceMs: 0, modelPausedUntil: null }),
    }).then(
      () => null,
      (error: { code?: string }) => error,
    );
    // Wait until the claim is blocked on a row lock (on x in the fixed order; on x after taking y before).
    for (let i = 0; i < 200; i++) {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype IN ('transactionid', 'tuple')`,
      );
      if (rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // The other instance now takes y: with the claim holding y, this closes a cycle (40P01 on one side).
    const otherResult = await other.query(`UPDATE "Conversation" SET "updatedAt" = now() WHERE "id" = $1`, [y]).then(
      () => null,
      (error: { code?: string }) => error,
    );
    await other.query(otherResult ? "ROLLBACK" : "COMMIT");
    const claimResult = await claim;

    expect(otherResult?.code ?? null).toBeNull();
    expect(claimResult?.code ?? null).toBeNull();
    const served = await t.db.prisma.conversation.findMany({ where: { id: { in: [x, y] } }, select: { servedAt: true } });
    expect(served.every((c) => c.servedAt?.getTime() === now.getTime())).toBe(true);
  }, 30_000);
});
