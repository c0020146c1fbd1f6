import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT_PAUSE_MS } from "@/lib/agent/call-limits";
import { metrics } from "@/lib/metrics/registry";
import { describeQueue } from "@/lib/server/queue";
import type { Caller } from "@/lib/auth/operators";
import { sendEnvelope } from "@/lib/pipeline/envelopes";
import { updateSettings } from "@/lib/settings/store";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeLlm, type ChatRequest, type FakeLlm, type Script } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

const api: Caller = { operator: { id: 0, name: "api" }, role: "admin", via: "token" };
const chatOf = (id: number) => ({ chat: { id, type: "private" as const }, from: { id, first_name: `U${id}` } });
/** The user turns of one model request (not the tool-result follow-ups). */
const userText = (r: ChatRequest) => r.messages.filter((m) => m.role === "user").map((m) => String(m.content));
const modelCalls = (llm: FakeLlm) => llm.requests.filter((r) => r.messages.at(-1)?.role !== "tool");

async function until(condition: () => boolean | Promise<boolean>, what: string) {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A latch the fake model waits on: calls hang until it is opened. */
function latch() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe.each(databases)("the worker's queue on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let testDb: TestDb;
  let t: TestApp;
  const reply: Script = () => ({ reply: "answer" });

  beforeAll(async () => {
    telegram = await startFakeTelegram();
    llm = await startFakeLlm(reply);
  });
  afterAll(async () => {
    await telegram.close();
    await llm.close();
  });
  beforeEach(async () => {
    telegram.calls.length = 0;
    llm.requests.length = 0;
    llm.setScript(reply);
    testDb = await open();
    t = await startTestApp({ db: testDb, telegram, llm });
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  it("a burst of messages is one turn: the model sees all of them once, the answer replies to the latest, every envelope records it", async () => {
    await updateSettings(t.db, { burstDebounceMs: 1000 }, "test");
    const texts = ["hi", "I have a question", "about my order"];
    for (const [i, text] of texts.entries()) await t.post(update({ messageId: 100 + i, text, ...chatOf(61) }));
    await t.settle();

    const calls = modelCalls(llm);
    expect(calls).toHaveLength(1);
    const seen = userText(calls[0]).join("\n");
    for (const text of texts) expect(seen).toContain(text);
    expect(calls[0].messages.find((m) => m.role === "system")?.content).toContain("last 3 messages in a row");
    const sends = telegram.sends();
    expect(sends).toHaveLength(1);
    expect(sends[0].body.reply_parameters.message_id).toBe(102);

    const inbound = await t.db.prisma.envelope.findMany({ where: { to: "agent:main" }, orderBy: { id: "asc" } });
    const outbound = await t.db.prisma.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound.replyToEnvelopeId).toBe(inbound[2].id);
    for (const e of inbound) {
      expect(e.status).toBe("done");
      expect(e.metadata).toMatchObject({
        replied: true,
        answerEnvelopeId: outbound.id,
        turnEnvelopeId: inbound[2].id,
        burst: inbound.map((x) => x.id),
      });
    }
    expect(await t.db.prisma.turn.count()).toBe(1);
  });

  it("a burst that arrives while a turn runs is taken by the next turn, whole", async () => {
    const gate = latch();
    llm.setScript(() => (modelCalls(llm).length === 1 ? { reply: "first", until: gate.promise } : { reply: "second" }));
    await t.post(update({ messageId: 200, text: "question one", ...chatOf(62) }));
    await until(() => modelCalls(llm).length === 1, "the first model call");
    await t.post(update({ messageId: 201, text: "oh and", ...chatOf(62) }));
    await t.post(update({ messageId: 202, text: "question two", ...chatOf(62) }));
    gate.open();
    await t.settle();

    const calls = modelCalls(llm);
    expect(calls).toHaveLength(2);
    expect(userText(calls[0]).join("\n")).not.toContain("question two");
    const second = userText(calls[1]);
    expect(second.at(-1)).toContain("question two");
    expect(second.at(-2)).toContain("oh and");
    expect(telegram.sends().map((s) => [s.body.text, s.body.reply_parameters.message_id])).toEqual([
      ["first", 200],
      ["second", 202],
    ]);
    const inbound = await t.db.prisma.envelope.findMany({ where: { to: "agent:main" }, orderBy: { id: "asc" } });
    expect(inbound.map((e) => e.status)).toEqual(["done", "done", "done"]);
    expect(inbound[1].metadata).toMatchObject({ replied: true, burst: [inbound[1].id, inbound[2].id] });
  });

  it("fairness: a conversation with a queue takes turns with quiet chats instead of going first every time", async () => {
    await updateSettings(t.db, { turnConcurrency: 1 }, "test");
    const gate = latch();
    llm.setScript((r) => ({
      reply: `re ${userText(r).at(-1)?.split("\n").pop()}`,
      ...(modelCalls(llm).length === 1 ? { until: gate.promise } : {}),
    }));
    // Chat 63 holds the only slot; then three scheduled-now sends queue up in it, and two quiet chats write.
    await t.post(update({ messageId: 300, text: "busy", ...chatOf(63) }));
    await until(() => modelCalls(llm).length === 1, "chat 63's turn");
    for (const n of [1, 2, 3]) await sendEnvelope(t.db, { from: "agent:main", to: "channel:telegram:63", text: `mail ${n}` }, api);
    await t.post(update({ messageId: 301, text: "quiet b", ...chatOf(64) }));
    await t.post(update({ messageId: 302, text: "quiet c", ...chatOf(65) }));
    gate.open();
    await t.settle();
    // Round-robin by wait: after its turn, chat 63 waits behind the chats that were already waiting.
    expect(telegram.sends().map((s) => s.body.text)).toEqual(["re busy", "re quiet b", "re quiet c", "mail 1", "mail 2", "mail 3"]);
  });

  it("a 429 with Retry-After pauses that provider's calls without burning attempts; other work goes on meanwhile", async () => {
    await t.post(update({ messageId: 399, text: "earlier", ...chatOf(68) }));
    await t.settle();
    llm.setScript(() => (modelCalls(llm).length === 2 ? { status: 429, headers: { "retry-after": "2" } } : { reply: "after the pause" }));
    await t.post(update({ messageId: 400, text: "first", ...chatOf(66) }));
    const rateLimited = () => t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main", from: "channel:telegram:66" } });
    await until(
      async () => (await rateLimited()).status === "pending" && modelCalls(llm).length === 2,
      "the rate-limited turn to be put back",
    );
    expect(t.app.gate?.pausedUntil()).not.toBeNull();
    const refusing = async () => (await describeQueue(t.app, new Date())).instance.model?.refusingSince;
    expect(await refusing()).toEqual(expect.any(String));
    // During the pause another chat's message waits for the model, and mail to a third chat goes out.
    await t.post(update({ messageId: 401, text: "second chat", ...chatOf(67) }));
    await sendEnvelope(t.db, { from: "operator:api", to: "channel:telegram:68", text: "we are on it" }, api);
    t.app.worker.kick();
    await until(() => telegram.sends().length === 2, "the operator's send");
    expect(telegram.sends()[1].body.text).toBe("we are on it");
    expect(modelCalls(llm)).toHaveLength(2);

    await t.settle();
    expect(
      telegram
        .sends()
        .slice(2)
        .map((s) => s.body.reply_parameters?.message_id)
        .sort(),
    ).toEqual([400, 401]);
    const inbound = await t.db.prisma.envelope.findMany({ where: { to: "agent:main" }, orderBy: { id: "asc" } });
    // The rate-limited attempt was not counted: each envelope ran once to completion.
    expect(inbound.map((e) => [e.status, e.attempts])).toEqual([
      ["done", 1],
      ["done", 1],
      ["done", 1],
    ]);
    expect(modelCalls(llm)).toHaveLength(4);
    // The provider accepted a call since: it is not refusing any more.
    expect(await refusing()).toBeNull();
  });

  it("a rate limit reported inside the stream (HTTP 200, then an error chunk) is put back as a 429 is: provider paused, no attempt counted", async () => {
    const limited = { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" };
    llm.setScript(() => (modelCalls(llm).length === 1 ? { streamError: limited } : { reply: "after the pause" }));
    // The model-call metrics count it as a rate-limited call, not an ok one.
    const labels = { provider: "openai-compatible", model: "fake-model" };
    type Values = { values: { value: number; labels: Record<string, unknown>; metricName?: string }[] };
    const sum = (metric: Values, extra: Record<string, string> = {}, name?: string) =>
      metric.values
        .filter((v) => (!name || v.metricName === name) && Object.entries({ ...labels, ...extra }).every(([k, x]) => v.labels[k] === x))
        .reduce((n, v) => n + v.value, 0);
    const rateLimited = async () => sum((await metrics()!.modelRateLimited.get()) as Values);
    const calls = async (result: string) =>
      sum((await metrics()!.modelCallDuration.get()) as Values, { result }, "switchboard_model_call_duration_seconds_count");
    const before = { limited: await rateLimited(), limitedCalls: await calls("rate_limited"), ok: await calls("ok") };
    await t.post(update({ messageId: 410, text: "hello", ...chatOf(69) }));
    const envelope = () => t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main", from: "channel:telegram:69" } });
    await until(
      async () => (await envelope()).status === "pending" && modelCalls(llm).length === 1,
      "the rate-limited turn to be put back",
    );
    // A drafted turn: the call was streamed, and the provider's answer began with HTTP 200.
    expect(modelCalls(llm)[0].stream).toBe(true);
    expect(t.app.gate?.pausedUntil()).not.toBeNull();
    expect(t.app.gate?.limitState().lastBackoff).toMatchObject({ reason: "rate_limited" });
    expect(await rateLimited()).toBe(before.limited + 1);
    expect(await calls("rate_limited")).toBe(before.limitedCalls + 1);
    expect(await calls("ok")).toBe(before.ok);

    // Taken again once the default pause (no Retry-After inside a stream) is over.
    await t.app.worker.idle(DEFAULT_RATE_LIMIT_PAUSE_MS + 1_000);
    expect(telegram.sends().map((s) => s.body.text)).toEqual(["after the pause"]);
    expect(await envelope()).toMatchObject({ status: "done", attempts: 1 });
    expect(modelCalls(llm)).toHaveLength(2);
  });

  it("the turn and model-call limits are settings: a change applies to the running worker, no restart", async () => {
    const gate = latch();
    let inFlight = 0;
    let most = 0;
    llm.setScript(() => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      void gate.promise.then(() => (inFlight -= 1));
      return { reply: "ok", until: gate.promise };
    });
    await updateSettings(t.db, { turnConcurrency: 1 }, "test");
    for (const chat of [71, 72, 73]) await t.post(update({ text: "hello", ...chatOf(chat) }));
    await until(() => modelCalls(llm).length === 1, "one turn");
    await new Promise((r) => setTimeout(r, 300)); // nothing else may start: the limit is 1
    expect(modelCalls(llm)).toHaveLength(1);

    // More turns, but at most two model calls at once.
    await updateSettings(t.db, { turnConcurrency: 3, modelConcurrency: 2 }, "test");
    t.app.worker.kick(); // what PATCH /api/v1/settings does
    await until(
      () => t.app.gate?.load().waiting === 1 && modelCalls(llm).length === 2,
      "two calls at the model, the third waiting for a slot",
    );
    expect(t.app.worker.load()).toMatchObject({ running: 3, turns: 3 });
    expect(t.app.gate?.load()).toMatchObject({ active: 2, waiting: 1, limit: 2 });
    expect(modelCalls(llm)).toHaveLength(2);
    gate.open();
    await t.settle();
    expect(most).toBe(2);
    expect(telegram.sends()).toHaveLength(3);
  });
});
