import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEMO_LABEL } from "@/lib/agent/demo-model";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { assertStoredTurnsIntact } from "../helpers/prompt-integrity";

describe("the sandbox demo model", () => {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp | undefined;

  beforeAll(async () => {
    telegram = await startFakeTelegram();
  });
  afterAll(() => telegram.close());
  afterEach(async () => {
    if (t) await assertStoredTurnsIntact(t.db);
    await t?.stop();
    t = undefined;
    await testDb.close();
  });

  it("answers in the sandbox through the reply tool, saying what it received: context size and reply annotation", async () => {
    testDb = await sqliteTestDb();
    t = await startTestApp({ db: testDb, wiringChoosesModel: true });
    expect(t.app.model).toMatchObject({ provider: "demo", modelId: "sandbox-demo" });
    const now = Math.floor(Date.now() / 1000);
    await t.post(update({ messageId: 10, text: "first question", date: now - 60 }));
    await t.settle();
    const first = await t.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" }, orderBy: { id: "desc" } });
    expect(first.senderKind).toBe("agent");
    expect(first.text.startsWith(DEMO_LABEL)).toBe(true);
    expect(first.text).toContain("I was shown 1 message in context.");
    expect(first.text).toContain("The newest is not a reply");
    expect(first.text).toContain("No gap note");

    // A reply to the bot's answer: the annotation shows (the gap note is covered in tests/unit/demo-model.test.ts).
    await t.post(
      update({
        messageId: 11,
        text: "and a follow-up",
        date: now,
        replyTo: { message_id: Number(first.platformMessageId), text: first.text, fromBot: true },
      }),
    );
    await t.settle();
    const second = await t.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" }, orderBy: { id: "desc" } });
    expect(second.id).not.toBe(first.id);
    expect(second.replyToMessageId).not.toBeNull();
    expect(second.text).toMatch(/I was shown 3 messages in context/);
    expect(second.text).toMatch(/The newest is a reply: \[↩ reply to agent: "\(demo model/);
    const turns = await t.db.prisma.turn.findMany();
    expect(turns.map((x) => x.model)).toEqual(["demo:sandbox-demo", "demo:sandbox-demo"]);
  });

  it("is never used when a real platform token is set", async () => {
    testDb = await sqliteTestDb();
    t = await startTestApp({ db: testDb, telegram, wiringChoosesModel: true });
    expect(t.app.model).toBeNull();
    telegram.calls.length = 0;
    await t.post(update({ messageId: 20, text: "anyone?" }));
    await t.settle();
    expect(await t.db.prisma.turn.count()).toBe(0);
    expect(await t.db.prisma.message.count({ where: { direction: "outbound" } })).toBe(0);
    expect(telegram.sends()).toHaveLength(0);
  });
});
