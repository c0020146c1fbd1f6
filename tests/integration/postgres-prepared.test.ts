import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresTarget } from "@/lib/db/migrations.mjs";
import { hasPostgres, POSTGRES_SKIP_REASON, postgresTestDb, type TestDb } from "../helpers/db";

describe("the hand-written PostgreSQL path's prepared statements", () => {
  it.skipIf(hasPostgres)(`on PostgreSQL: ${POSTGRES_SKIP_REASON}`, () => {});
});

describe.skipIf(!hasPostgres)("the hand-written PostgreSQL path's prepared statements (PostgreSQL)", () => {
  let t: TestDb;
  let admin: pg.Client;
  beforeAll(async () => {
    t = await postgresTestDb();
    const { connectionString, schema } = postgresTarget(t.url);
    admin = new pg.Client({ connectionString, options: `-c search_path="${schema}"` });
    await admin.connect();
    await admin.query(
      `INSERT INTO "Conversation" ("channel", "platformChatId", "type", "updatedAt") VALUES ('telegram', '1', 'private', now())`,
    );
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  const readConversation = () => t.db.read<Record<string, unknown>>(`SELECT * FROM "Conversation" WHERE "platformChatId" = ?`, "1");

  it("prepares a statement once per connection and runs it again by name", async () => {
    const prepared = await t.db.transaction(async (sql) => {
      await sql.all(`SELECT * FROM "Conversation" WHERE "platformChatId" = ?`, "1");
      await sql.all(`SELECT * FROM "Conversation" WHERE "platformChatId" = ?`, "1");
      return sql.all<{ n: number }>(
        `SELECT CAST(COUNT(*) AS int) AS "n" FROM pg_prepared_statements WHERE "statement" LIKE 'SELECT * FROM "Conversation"%'`,
      );
    });
    expect(prepared[0].n).toBe(1);
  });

  it("keeps answering after a migration changes a table under a prepared SELECT *", async () => {
    for (let i = 0; i < 6; i++) expect((await readConversation())[0]).not.toHaveProperty("addedLater");
    await admin.query(`ALTER TABLE "Conversation" ADD COLUMN "addedLater" int`);
    expect((await readConversation())[0]).toHaveProperty("addedLater", null);

    // Inside a transaction the refused plan fails that transaction once (its caller retries); the next one plans afresh.
    const inTransaction = () =>
      t.db.transaction((sql) => sql.all<Record<string, unknown>>(`SELECT * FROM "Conversation" WHERE "platformChatId" = ?`, "1"));
    for (let i = 0; i < 6; i++) await inTransaction();
    await admin.query(`ALTER TABLE "Conversation" DROP COLUMN "addedLater"`);
    const first = await inTransaction().catch((error: Error) => error);
    if (first instanceof Error) expect(first.message).toMatch(/cached plan/);
    expect((await inTransaction())[0]).not.toHaveProperty("addedLater");
  });
});
