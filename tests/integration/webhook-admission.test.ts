import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { alice, privateChat, update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

/**
 * Under a burst, chats already taken in are answered before more are taken in
 * (lib/pipeline/webhook-admission.ts), wired as the server wires it: the turns
 * at work are the worker's running turns less those waiting on a model call or
 * on their platform, and only a verified update waits. The thread counts as
 * saturated throughout (the event loop's own reading, and the queue's order and
 * pacing, are tested in tests/unit/webhook-admission.test.ts).
 */
describe("verified updates under a burst wait for the turns at work", () => {
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let testDb: TestDb;
  let t: TestApp;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    llm = await startFakeLlm(() => ({ reply: "noted" }));
  });
  afterAll(async () => {
    await telegram.close();
    await llm.close();
  });
  afterEach(async () => {
    await t.settle();
    await t.stop();
    await testDb.close();
  });

  /** The thread counts as saturated throughout; by default two turns at work fill the room. */
  async function start(admission: { limit?: number; maxWaitMs?: number } = {}) {
    telegram.calls.length = 0;
    llm.requests.length = 0;
    llm.setScript(() => ({ reply: "noted" }));
    testDb = await sqliteTestDb();
    t = await startTestApp({ db: testDb, telegram, llm, admission: { saturated: () => true, limit: 2, maxWaitMs: 10_000, ...admission } });
  }
  const user = (n: number) => ({ ...alice, id: 5000 + n, first_name: `User ${n}` });
  const post = (n: number) => t.post(update({ chat: privateChat(user(n)), from: user(n), text: `hello from ${n}` }));
  const statusOf = async (n: number) =>
    (
      await t.db.prisma.envelope.findFirstOrThrow({
        where: { conversation: { platformChatId: String(5000 + n) }, to: { startsWith: "agent:" } },
      })
    ).status;
  async function until(condition: () => boolean | Promise<boolean>) {
    const deadline = Date.now() + 10_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const waited = async () =>
    (await metrics()?.webhookAdmissionWait.get())?.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;

  it("turns waiting on their platform (a slow sendMessage) hold no update: it is taken in at once", async () => {
    await start();
    const before = await waited();
    telegram.holdNext(1_500);
    telegram.holdNext(1_500);
    expect((await post(1)).status).toBe(200);
    expect((await post(2)).status).toBe(200);
    // Both turns are now sending, and the platform holds both answers.
    await until(() => telegram.sends().length === 2);

    expect((await post(3)).status).toBe(200);
    // Taken in while both sends were still held.
    expect([await statusOf(1), await statusOf(2)]).toEqual(["processing", "processing"]);
    expect(await waited()).toBe(before);
    await t.settle();
    expect(telegram.sends().map((s) => s.body.text)).toEqual(["noted", "noted", "noted"]);
  }, 30_000);

  it("with no room, a verified update waits at most the longest wait and is then stored; a stranger's request never waits", async () => {
    await start({ limit: 0, maxWaitMs: 1_000 });
    const before = await waited();
    // A wrong secret is refused before any wait, whatever the load.
    const refused = await t.post(update({ text: "let me in" }), { secret: "wrong-secret" });
    expect(refused.status).toBe(401);
    expect(await waited()).toBe(before);

    expect((await post(1)).status).toBe(200);
    expect(await waited()).toBe(before + 1);
    const [wait] = (await metrics()?.webhookAdmissionWait.get())?.values.filter((v) => v.metricName?.endsWith("_sum")) ?? [];
    expect(wait?.value).toBeGreaterThanOrEqual(1);
    await t.settle();
    expect(await statusOf(1)).toBe("done");
  }, 30_000);

  it("turns waiting on the model hold no webhook: it is taken in at once", async () => {
    await start();
    const before = await waited();
    llm.setScript(() => ({ reply: "thought about it", delayMs: 1_500 }));
    await post(1);
    await post(2);
    await until(() => llm.requests.length === 2);

    expect((await post(3)).status).toBe(200);
    // Taken in while both model calls were still running.
    expect([await statusOf(1), await statusOf(2)]).toEqual(["processing", "processing"]);
    expect(await waited()).toBe(before);
  }, 30_000);
});
