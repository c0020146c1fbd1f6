import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/metrics/route";
import { GET as conversationUsageRoute } from "@/app/api/v1/conversations/[id]/usage/route";
import { GET as usageRoute } from "@/app/api/v1/usage/route";
import { conversationUsageResponse, usageResponse } from "@/lib/api/usage";
import { replayTurn } from "@/lib/replay/run-replay";
import { updateSettings } from "@/lib/settings/store";
import { tracing } from "@/lib/tracing/hooks";
import { alice, update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { parseExposition, sampleValue } from "../helpers/exposition";
import { useHarness } from "../helpers/harness";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

const TOKEN = "test-api-token-0123456789";
const METRICS_TOKEN = "metrics-token-0123456789";
// The fake model reports 12 prompt and 5 completion tokens per call (tests/helpers/fake-llm.ts).
const PRICE = { provider: "openai-compatible", model: "fake-model", input: 2, output: 8, cachedInput: null, note: "test" };
const EXPECTED_COST = (12 * 2 + 5 * 8) / 1e6;

describe.each(databases)("Metrics, cost and usage on $name", ({ name, open }) => {
  const h = useHarness({ open });
  beforeEach(() => {
    installRouteApp({ ...h.t.app, env: { ...h.t.app.env, METRICS_TOKEN } }, TOKEN);
  });
  afterEach(() => uninstallRouteApp());

  async function scrape(token: string | null) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const response = await metricsRoute(new Request("http://localhost/metrics", { headers }));
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
  }
  it("after one answered webhook, /metrics (with a token; 401 without) counts the request, the answered turn and the model call", async () => {
    const before = parseExposition((await scrape(METRICS_TOKEN)).text);
    const model = { provider: "openai-compatible", model: "fake-model" };

    expect((await h.t.post(update({ text: "hello there" }))).status).toBe(200);
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["Hello from the fake model"]);

    expect((await scrape(null)).status).toBe(401);
    expect((await scrape("wrong-token-0123456789")).status).toBe(401);
    expect((await scrape(TOKEN)).status).toBe(200);
    const scraped = await scrape(METRICS_TOKEN);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toContain("text/plain");
    // Read strictly as the text exposition format (it throws on any malformed line).
    const after = parseExposition(scraped.text);
    const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect(delta("switchboard_webhook_requests_total", { channel: "telegram", status: "200" })).toBe(1);
    expect(delta("switchboard_webhook_request_duration_seconds_count", { channel: "telegram" })).toBe(1);
    expect(delta("switchboard_updates_ingested_total", { channel: "telegram", result: "stored" })).toBe(1);
    expect(delta("switchboard_turns_total", { outcome: "answered" })).toBe(1);
    expect(delta("switchboard_sends_total", { channel: "telegram", outcome: "sent" })).toBe(1);
    expect(delta("switchboard_model_call_duration_seconds_count", { ...model, result: "ok" })).toBe(1);
    expect(delta("switchboard_model_call_duration_seconds_bucket", { ...model, result: "ok", le: "+Inf" })).toBe(1);
    expect(delta("switchboard_model_tokens_total", { ...model, type: "input" })).toBe(12);
    expect(delta("switchboard_model_tokens_total", { ...model, type: "output" })).toBe(5);
    expect(after.some((s) => s.name === "switchboard_queue_oldest_wait_seconds")).toBe(true);
    expect(after.some((s) => s.name === "switchboard_db_statement_duration_seconds_count")).toBe(true);
    // Every statement is counted, on the hand-written path and Prisma's (the bench's statements per answered turn).
    expect(delta("switchboard_db_statements_total", { dialect: name, path: "sql" })).toBeGreaterThan(0);
    await h.t.db.prisma.conversation.count();
    await h.t.db.prisma.$transaction([h.t.db.prisma.conversation.count(), h.t.db.prisma.message.count()]);
    const prisma = parseExposition((await scrape(METRICS_TOKEN)).text);
    expect(
      sampleValue(prisma, "switchboard_db_statements_total", { dialect: name, path: "prisma" }) -
        sampleValue(after, "switchboard_db_statements_total", { dialect: name, path: "prisma" }),
    ).toBeGreaterThanOrEqual(3);
    // Without OTEL_EXPORTER_OTLP_ENDPOINT no tracing was started.
    expect(tracing()).toBeNull();
    // No chat ids, user names or text in any label (a sample's value, e.g. resident memory, may hold the digits).
    const labelValues = after.flatMap((sample) => Object.values(sample.labels).map(String));
    expect(labelValues.filter((v) => v.includes(String(alice.id)) || v.includes(alice.first_name))).toEqual([]);
    expect(scraped.text).not.toContain("hello there");
  });

  it("counts ignored updates by reason, and rate limits by provider and model", async () => {
    let calls = 0;
    h.llm.setScript(() => (++calls === 1 ? { status: 429, headers: { "retry-after": "0" } } : { reply: "back again" }));
    await h.t.post({ update_id: 91, callback_query: { id: "1", from: { ...alice, is_bot: false }, chat_instance: "x" } });
    await h.t.post(update({ text: "are you there" }));
    await h.t.settle();
    const samples = parseExposition((await scrape(METRICS_TOKEN)).text);
    expect(samples.filter((s) => s.name === "switchboard_updates_ignored_total" && s.labels.channel === "telegram").length).toBeGreaterThan(
      0,
    );
    expect(
      sampleValue(samples, "switchboard_model_rate_limited_total", { provider: "openai-compatible", model: "fake-model" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, "switchboard_turns_total", { outcome: "rate_limited" })).toBeGreaterThanOrEqual(1);
  });

  it("model labels name only configured models: a model typed into a replay counts as other", async () => {
    await h.t.post(update({ text: "hello there" }));
    await h.t.settle();
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    const before = parseExposition((await scrape(METRICS_TOKEN)).text);
    const replayWith = (model: string) =>
      replayTurn(
        h.t.app.replay,
        turn.id,
        { mode: "frozen", variant: { model: { provider: "openai-compatible", model, baseUrl: h.llm.baseUrl } } },
        { name: "test", quota: false },
      );
    // Five names nobody configured, one in the price table, one a bot's own model.
    for (let i = 1; i <= 5; i++) await replayWith(`typed-in-${i}`);
    await updateSettings(h.t.db, { modelPrices: [{ ...PRICE, model: "priced-model" }] }, "test");
    await replayWith("priced-model");
    await h.t.db.prisma.bot.create({
      data: {
        platform: "telegram",
        source: "api",
        adapter: "telegram-88",
        name: "Bravo",
        model: JSON.stringify({ provider: "openai-compatible", model: "bots-model", baseUrl: h.llm.baseUrl }),
      },
    });
    await replayWith("bots-model");
    await replayWith("fake-model");
    expect(await h.t.db.prisma.replay.count({ where: { status: "done" } })).toBe(8);

    const after = parseExposition((await scrape(METRICS_TOKEN)).text);
    const calls = (model: string) =>
      sampleValue(after, "switchboard_model_call_duration_seconds_count", { provider: "openai-compatible", model, result: "ok" }) -
      sampleValue(before, "switchboard_model_call_duration_seconds_count", { provider: "openai-compatible", model, result: "ok" });
    expect([calls("other"), calls("priced-model"), calls("bots-model"), calls("fake-model")]).toEqual([5, 1, 1, 1]);
    const models = new Set(after.flatMap((sample) => (sample.labels.model === undefined ? [] : [String(sample.labels.model)])));
    expect([...models].sort()).toEqual(["bots-model", "fake-model", "other", "priced-model"]);
  });

  it("stores each turn's cost as tokens × price, null without a price", async () => {
    await updateSettings(h.t.db, { modelPrices: [PRICE] }, "test");
    await h.t.post(update({ text: "first" }));
    await h.t.settle();
    await updateSettings(h.t.db, { modelPrices: [] }, "test");
    await h.t.post(update({ text: "second" }));
    await h.t.settle();
    const turns = await h.t.db.prisma.turn.findMany({ orderBy: { id: "asc" } });
    expect(turns.map((t) => ({ input: t.inputTokens, output: t.outputTokens, cost: t.costUsd }))).toEqual([
      { input: 12, output: 5, cost: EXPECTED_COST },
      { input: 12, output: 5, cost: null },
    ]);
  });

  it("/api/v1/usage sums agree with the turns, per day, model and conversation", async () => {
    await updateSettings(h.t.db, { modelPrices: [PRICE] }, "test");
    await h.t.post(update({ text: "one" }));
    await h.t.post(update({ text: "from bob", chat: { id: 5151, type: "private" }, from: { id: 5151, first_name: "Bob" } }));
    await h.t.settle();
    await h.t.post(update({ text: "two" }));
    await h.t.settle();
    const turns = await h.t.db.prisma.turn.findMany();
    expect(turns).toHaveLength(3);
    const sum = (pick: (t: (typeof turns)[number]) => number | null) => turns.reduce((s, t) => s + (pick(t) ?? 0), 0);
    const totals = {
      turns: 3,
      inputTokens: sum((t) => t.inputTokens),
      outputTokens: sum((t) => t.outputTokens),
      cachedInputTokens: 0,
      costUsd: Math.round(sum((t) => t.costUsd) * 1e8) / 1e8,
      unpricedTurns: 0,
    };
    expect(totals.costUsd).toBeCloseTo(3 * EXPECTED_COST, 12);
    // One replay of Alice's first turn (the same model and price), and one still running (no usage yet: not counted).
    const alicesFirst = turns.filter((t) => t.conversationId === report0(turns)).sort((a, b) => a.id - b.id)[0]!;
    await replayTurn(h.t.app.replay, alicesFirst.id, { mode: "frozen", variant: {} }, { name: "test", quota: false });
    await h.t.db.prisma.replay.create({
      data: { turnId: alicesFirst.id, conversationId: alicesFirst.conversationId, mode: "frozen", variant: {}, status: "running" },
    });
    // And a run's turn that could not start (its model gone): it called no model, so it is not a replay that cost anything.
    await h.t.db.prisma.replay.create({
      data: {
        turnId: alicesFirst.id,
        conversationId: alicesFirst.conversationId,
        mode: "frozen",
        variant: {},
        status: "failed",
        error: "gone",
      },
    });
    const replays = { replays: 1, inputTokens: 12, outputTokens: 5, costUsd: EXPECTED_COST, unpricedReplays: 0 };

    const get = async (query: string) => {
      const response = await usageRoute(
        new Request(`http://localhost/api/v1/usage${query}`, { headers: { authorization: `Bearer ${TOKEN}` } }),
        {
          params: Promise.resolve({}),
        },
      );
      return { status: response.status, body: (await response.json()) as unknown };
    };
    for (const groupBy of ["day", "model", "conversation"]) {
      const { status, body } = await get(`?groupBy=${groupBy}`);
      expect(status).toBe(200);
      const report = usageResponse.parse(body);
      // The live turns' sums do not change with a replay; the replay is summed apart.
      expect(report.totals).toEqual(totals);
      expect(report.replays).toEqual(replays);
      expect(report.rows.reduce((n, r) => n + r.replays.replays, 0)).toBe(1);
      const rowSum = (k: "turns" | "inputTokens" | "outputTokens") => report.rows.reduce((s, r) => s + r[k], 0);
      expect({ turns: rowSum("turns"), inputTokens: rowSum("inputTokens"), outputTokens: rowSum("outputTokens") }).toEqual({
        turns: 3,
        inputTokens: totals.inputTokens,
        outputTokens: totals.outputTokens,
      });
      if (groupBy === "day") {
        expect(report.rows).toHaveLength(30);
        expect(report.rows.at(-1)?.key).toBe(new Date().toISOString().slice(0, 10));
      }
      if (groupBy === "model") expect(report.rows.map((r) => r.key)).toEqual(["openai-compatible:fake-model"]);
      if (groupBy === "model") expect(report.rows[0]?.replays).toEqual(replays);
      if (groupBy === "day") expect(report.rows.at(-1)?.replays).toEqual(replays);
      if (groupBy === "conversation") {
        expect(report.rows.map((r) => r.turns)).toEqual([2, 1]);
        expect(report.rows[1]?.label).toBe("Bob");
        expect(report.rows.map((r) => r.replays.replays)).toEqual([1, 0]);
        expect(report.rows[0]?.replays.costUsd).toBeCloseTo(EXPECTED_COST, 12);
      }
    }
    // A range without the turns sums to nothing; bad input is a 400.
    const empty = usageResponse.parse((await get("?from=2020-01-01&to=2020-01-31&groupBy=model")).body);
    expect(empty.totals.turns).toBe(0);
    expect((await get("?groupBy=week")).status).toBe(400);
    expect((await get("?from=2026-02-01&to=2026-01-01")).status).toBe(400);
    expect((await get("?from=2020-01-01&to=2026-01-01")).status).toBe(400);

    const alices = turns.filter((t) => t.conversationId === report0(turns));
    const response = await conversationUsageRoute(new Request("http://localhost", { headers: { authorization: `Bearer ${TOKEN}` } }), {
      params: Promise.resolve({ id: String(alices[0]!.conversationId) }),
    });
    const conversation = conversationUsageResponse.parse(await response.json());
    expect(conversation.turns).toBe(2);
    expect(conversation.costUsd).toBeCloseTo(2 * EXPECTED_COST, 12);
    expect(conversation.replays).toEqual(replays);
  });
});

/** Alice's conversation: the one with two turns. */
function report0(turns: { conversationId: number }[]) {
  const counts = new Map<number, number>();
  for (const t of turns) counts.set(t.conversationId, (counts.get(t.conversationId) ?? 0) + 1);
  return [...counts].find(([, n]) => n === 2)![0];
}
