import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultModelPrices } from "@/lib/usage/prices";
import { alice, group, mention, update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { replyCall, resourceExhausted, startFakeGemini, type FakeGemini } from "../helpers/fake-gemini";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

/**
 * LLM_PROVIDER=google: the server talks to Google's Generative Language API (a
 * loopback stand-in answering in its wire shapes), through the same gate, price
 * table and usage columns as the other providers.
 */
describe("Gemini as the provider (LLM_PROVIDER=google)", () => {
  let gemini: FakeGemini;
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;
  beforeAll(async () => {
    gemini = await startFakeGemini();
    telegram = await startFakeTelegram();
  });
  afterAll(async () => {
    await gemini.close();
    await telegram.close();
  });
  beforeEach(async () => {
    gemini.reset();
    telegram.calls.length = 0;
    testDb = await sqliteTestDb();
    t = await startTestApp({
      db: testDb,
      telegram,
      // The model comes from the environment, as in production.
      wiringChoosesModel: true,
      env: { LLM_PROVIDER: "google", LLM_MODEL: "gemini-2.5-flash", LLM_BASE_URL: gemini.baseUrl, LLM_API_KEY: "google-test-key" },
    });
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  const sends = () => telegram.calls.filter((c) => c.method === "sendMessage").map((c) => c.body);
  const flash = defaultModelPrices.find((p) => p.provider === "google" && p.model === "gemini-2.5-flash")!;

  it("answers through `reply`, and the turn's tokens and cost are every step's, each counted once", async () => {
    // First a call the tool refuses (no message): the error goes back to the model, whose second call replies.
    gemini.answer(
      { parts: [replyCall({ text: "wrong argument" })], usage: { prompt: 1000, output: 30, cached: 600 } },
      { parts: [replyCall({ message: "Gemini says hello" })], usage: { prompt: 1100, output: 20, cached: 600 } },
    );
    await t.post(update({ chat: group, messageId: 71, ...mention("@switchboard_bot hi there") }));
    await t.settle();

    expect(sends()).toHaveLength(1);
    expect(sends()[0]).toMatchObject({ chat_id: String(group.id), text: "Gemini says hello", reply_parameters: { message_id: 71 } });
    expect(gemini.calls.map((c) => [c.model, c.method, c.apiKey])).toEqual([
      ["gemini-2.5-flash", "generateContent", "google-test-key"],
      ["gemini-2.5-flash", "generateContent", "google-test-key"],
    ]);
    // The system prompt goes as Gemini's systemInstruction, the tools as function declarations, the user's text as a user turn.
    const first = gemini.calls[0]!.body;
    expect(first.systemInstruction?.parts[0]?.text).toEqual(expect.any(String));
    expect(first.tools?.flatMap((tool) => tool.functionDeclarations ?? []).map((f) => f.name)).toEqual(
      expect.arrayContaining(["reply", "handoff"]),
    );
    expect(JSON.stringify(first.contents)).toContain("hi there");
    // The second call carries the refused call and its error as a functionResponse.
    expect(JSON.stringify(gemini.calls[1]!.body.contents)).toContain("functionResponse");

    const turn = await t.db.prisma.turn.findFirstOrThrow();
    expect(turn.model).toBe("google:gemini-2.5-flash");
    expect([turn.inputTokens, turn.cachedInputTokens, turn.outputTokens]).toEqual([2100, 1200, 50]);
    // 900 uncached + 1,200 cached input tokens and 50 output tokens at the prefilled Gemini 2.5 Flash prices.
    expect(turn.costUsd).toBeCloseTo((900 * flash.input + 1200 * flash.cachedInput! + 50 * flash.output) / 1e6, 12);
    const envelope = await t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    expect(envelope.status).toBe("done");
  });

  // Gemini sends a function call whole, in one event: the answer has no draft to grow, and arrives as with the other providers.
  it("streams a private chat's turn (streamGenerateContent over server-sent events): one answer, usage recorded", async () => {
    gemini.answer({ parts: [replyCall({ message: "A streamed hello from Gemini" })], usage: { prompt: 800, output: 12 } });
    await t.post(update({ text: "hello, stream please" }));
    await t.settle();

    expect(gemini.calls.map((c) => [c.method, c.sse])).toEqual([["streamGenerateContent", true]]);
    expect(sends().map((s) => [s.chat_id, s.text])).toEqual([[String(alice.id), "A streamed hello from Gemini"]]);
    const turn = await t.db.prisma.turn.findFirstOrThrow();
    expect([turn.inputTokens, turn.cachedInputTokens, turn.outputTokens]).toEqual([800, 0, 12]);
    expect(turn.costUsd).toBeCloseTo((800 * flash.input + 12 * flash.output) / 1e6, 12);
  });

  it("a 429 RESOURCE_EXHAUSTED pauses Gemini's calls for the RetryInfo's delay and puts the turn back, no attempt counted", async () => {
    gemini.answer(resourceExhausted("40s"));
    const before = Date.now();
    await t.post(update({ chat: group, messageId: 72, ...mention("@switchboard_bot are you there") }));
    const inbound = () => t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    for (let i = 0; i < 200 && !(gemini.calls.length === 1 && (await inbound()).status === "pending"); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));

    expect(gemini.calls).toHaveLength(1);
    expect(await inbound()).toMatchObject({ status: "pending", attempts: 0 });
    // Paused for Google's 40 s, not the 5 s a 429 without a stated delay gets.
    const until = t.app.gate!.pausedUntil()!.getTime();
    expect(until - before).toBeGreaterThanOrEqual(40_000);
    expect(until - Date.now()).toBeLessThanOrEqual(40_000);
    expect(sends()).toEqual([]);
  });
});
