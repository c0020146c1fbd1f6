import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_WORK, withArrival } from "@/lib/db/arrival";
import { openDb, type Database } from "@/lib/db/database";
import { hasPostgres, POSTGRES_SKIP_REASON, postgresTestDb, type TestDb } from "../helpers/db";

describe("PostgreSQL connections by arrival", () => {
  it.skipIf(hasPostgres)(`on PostgreSQL: ${POSTGRES_SKIP_REASON}`, () => {});
});

/**
 * Under load the hand-written path's pool is the queue every turn and ingest waits
 * in. Served first come first served, a thousand turns each advanced one statement
 * at a time and all answered late together; served oldest work first, turns
 * already under way finish before newer work takes the connections.
 */
describe.skipIf(!hasPostgres)("PostgreSQL connections by arrival (PostgreSQL)", () => {
  let t: TestDb;
  let db: Database;
  beforeAll(async () => {
    t = await postgresTestDb();
    db = await openDb(t.url, { poolSize: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
  });

  it("gives a free connection to the oldest waiting work, and the queue's own work before any", async () => {
    const order: string[] = [];
    // Holds the only connection while the others queue.
    const busy = db.read(`SELECT pg_sleep(0.3)`);
    await new Promise((r) => setTimeout(r, 50));
    const run = (label: string, arrivedAt: number) =>
      withArrival(arrivedAt, () => db.read(`SELECT 1 AS "one"`).then(() => order.push(label)));
    const now = Date.now();
    const waiting = [
      run("ingest that arrived now", now),
      run("turn of a message from 3 s ago", now - 3_000),
      withArrival(QUEUE_WORK, () => db.transaction((sql) => sql.all(`SELECT 1 AS "one"`)).then(() => order.push("claim"))),
      run("turn of a message from 5 s ago", now - 5_000),
      db.read(`SELECT 1 AS "one"`).then(() => order.push("dashboard read, no arrival")),
    ];
    await Promise.all([busy, ...waiting]);
    expect(order).toEqual([
      "claim",
      "turn of a message from 5 s ago",
      "turn of a message from 3 s ago",
      "ingest that arrived now",
      "dashboard read, no arrival",
    ]);
  });

  it("keeps the connection (and its prepared statements) when a statement fails on its own, as a duplicate key or a failing builder does", async () => {
    const pid = async () => (await db.read<{ pid: number }>(`SELECT pg_backend_pid() AS "pid"`))[0].pid;
    const before = await pid();
    const insert = () =>
      db.write([`INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES ('telegram', 'dup', ?)`, new Date()]);
    await insert();
    await expect(insert()).rejects.toThrow(/duplicate key|unique/i);
    expect(await pid()).toBe(before);
    // A statement whose builder throws never reached the connection.
    await expect(
      db.write(() => {
        throw new Error("builder failed");
      }),
    ).rejects.toThrow("builder failed");
    expect(await pid()).toBe(before);
  });
});
