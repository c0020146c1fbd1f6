import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queueResponse } from "@/lib/api/queue";
import { describeQueue } from "@/lib/server/queue";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

const chatOf = (id: number) => ({ chat: { id, type: "private" as const }, from: { id, first_name: `U${id}` } });
const MODEL_MS = 150;

/**
 * A provider whose capacity changes mid-run: it answers 429 (with Retry-After) to
 * every call above `capacity` in flight, as a provider's concurrency limit does.
 * The limiter is the process's, so one database is enough here.
 */
describe("the model-call limit follows the provider's capacity", () => {
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let testDb: TestDb;
  let t: TestApp;
  const provider = { capacity: 0, inFlight: 0, most: 0, refused: 0 };

  beforeAll(async () => {
    telegram = await startFakeTelegram();
    llm = await startFakeLlm();
    llm.setScript(() => {
      if (provider.inFlight >= provider.capacity) {
        provider.refused += 1;
        return { status: 429, headers: { "retry-after-ms": "100" } };
      }
      provider.inFlight += 1;
      provider.most = Math.max(provider.most, provider.inFlight);
      return { reply: "answer", until: new Promise((r) => setTimeout(r, MODEL_MS)).then(() => (provider.inFlight -= 1)) };
    });
  });
  afterAll(async () => {
    await telegram.close();
    await llm.close();
  });
  beforeEach(async () => {
    testDb = await sqliteTestDb();
    t = await startTestApp({ db: testDb, telegram, llm });
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  /** `chats` users write at once while the provider holds `capacity` calls; every one is answered. */
  async function phase(capacity: number, chats: number, firstChat: number) {
    provider.capacity = capacity;
    provider.most = 0;
    provider.refused = 0;
    const sent = telegram.sends().length;
    await Promise.all(Array.from({ length: chats }, (_, i) => t.post(update({ text: "hello", ...chatOf(firstChat + i) }))));
    await t.settle();
    expect(telegram.sends().length - sent).toBe(chats);
    return { ...t.app.gate!.limitState(), refused: provider.refused, most: provider.most };
  }

  it("grows to a roomy provider, backs off when it shrinks, and grows again when it recovers; no turn fails", async () => {
    expect(t.app.gate!.limitState()).toMatchObject({ limit: 50, ceiling: 1_000, lastBackoff: null });

    const roomy = await phase(20, 100, 1_000);
    expect(roomy.refused).toBeGreaterThan(0);
    expect(roomy.lastBackoff).toMatchObject({ reason: "rate_limited" });
    expect(roomy.limit).toBeGreaterThanOrEqual(10);
    expect(roomy.limit).toBeLessThanOrEqual(30);
    // The queue panel's API says where the limit stands and why it last moved.
    const { instance } = queueResponse.parse(await describeQueue(t.app, new Date()));
    expect(instance.model).toMatchObject({ provider: "openai-compatible", model: "fake-model", limit: roomy.limit, ceiling: 1_000 });
    expect(instance.model?.lastBackoff).toMatchObject({
      reason: "rate_limited",
      detail: expect.stringMatching(/^HTTP 429 with Retry-After 0\.1 s/),
    });

    const shrunk = await phase(5, 40, 2_000);
    expect(shrunk.limit).toBeLessThanOrEqual(10);
    expect(shrunk.lastBackoff?.at.getTime()).toBeGreaterThan(roomy.lastBackoff!.at.getTime());

    const recovered = await phase(30, 200, 3_000);
    expect(recovered.refused).toBe(0);
    expect(recovered.limit).toBeGreaterThanOrEqual(Math.max(10, 2 * shrunk.limit));
    expect(recovered.lastChange.reason).toMatch(/succeeded|rate_limited/);

    // A refusal is the provider's limit, not the turn's fault: nothing failed, no attempt counted.
    const envelopes = await t.db.prisma.envelope.findMany({ where: { to: "agent:main" } });
    expect(envelopes).toHaveLength(340);
    expect(envelopes.every((e) => e.status === "done" && e.attempts === 1)).toBe(true);
    // Each chat answered exactly once.
    expect(new Set(telegram.sends().map((s) => s.body.chat_id)).size).toBe(340);
  }, 180_000);
});
