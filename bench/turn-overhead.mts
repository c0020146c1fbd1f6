// End-to-end turn overhead on a production build, SQLite: webhook in → model →
// reply tool → sendMessage out, with an instant OpenAI-compatible model and a Bot
// API server on loopback. Reported minus the time the model server spent, next to
// the bare loopback round trips a turn needs (same run). SQLite, then PostgreSQL
// when BENCH_DATABASE_URL or TEST_DATABASE_URL is set.
import { answerCompletion, body, fakeBotApi, listen, privateTextUpdate } from "./loopback.ts";
import { benchPostgres, POSTGRES_SKIPPED } from "./postgres.ts";
import { startServer } from "./server.mts";
import { report, summarize } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3951);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const SECRET = "bench-secret";

let modelMs = 0;
let modelCalls = 0;
const llm = await listen(async (req, res) => {
  const started = performance.now();
  const payload = await body(req);
  const last = payload.messages.at(-1);
  answerCompletion(res, payload, last.role === "tool" ? { content: "" } : { reply: "ok" }, "instant");
  modelMs += performance.now() - started;
  modelCalls += 1;
});

const waiting = new Map<number, (at: number) => void>();
let nextId = 70_000;
const telegram = await fakeBotApi((payload) => {
  waiting.get(payload.reply_parameters?.message_id)?.(performance.now());
  return { message_id: nextId++, date: Math.floor(Date.now() / 1000), chat: { id: payload.chat_id, type: "private" }, text: payload.text };
});

/**
 * Baseline, same run: the loopback round trips a turn cannot avoid, made directly
 * one after another — POST /api/ping on the same server, one model request, one
 * sendMessage. What the turn adds beyond these is the pipeline's own work.
 */
let baselineModelCalls = 0;
async function roundTrips(base: string) {
  baselineModelCalls += 1;
  const post = (url: string, body: unknown) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) =>
      r.arrayBuffer(),
    );
  const started = performance.now();
  await post(`${base}/api/ping`, { update_id: 1, message: { text: "x" } });
  await post(`${llm.url}/v1/chat/completions`, { model: "instant", messages: [{ role: "user", content: "x" }] });
  await post(`${telegram.url}/bot1:bench/sendMessage`, { chat_id: 1, text: "x" });
  return performance.now() - started;
}

/** The targets are for SQLite; PostgreSQL rows are reported without one. */
async function bench(label: string, env: Record<string, string>, withTargets: boolean) {
  const server = await startServer(PORT, {
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_BOT_TOKEN: "1:bench",
    TELEGRAM_API_ROOT: telegram.url,
    LLM_PROVIDER: "openai-compatible",
    LLM_MODEL: "instant",
    LLM_BASE_URL: `${llm.url}/v1`,
    // The burst debounce is a wait by design (bench/answer-latency counts it); this
    // measures what the pipeline itself adds.
    BURST_DEBOUNCE_MS: "0",
    ...env,
  });
  try {
    const overhead: number[] = [];
    const baseline: number[] = [];
    const modelCallsBefore = modelCalls - baselineModelCalls;
    for (let i = 1; i <= TURNS + 20; i++) {
      const id = nextUpdate++;
      const chat = 5000 + (i % 20);
      const sent = new Promise<number>((resolve) => waiting.set(id, resolve));
      const modelBefore = modelMs;
      const payload = privateTextUpdate(id, chat, "U", `turn ${i}`);
      const deliver = () =>
        fetch(`${server.base}/api/webhooks/telegram`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET, "accept-encoding": "gzip, deflate" },
          body: payload,
        });
      let started = performance.now();
      let response = await deliver();
      // 503 until the server knows the bot's identity (its first getMe): Telegram delivers again, so do we.
      for (let attempt = 1; response.status === 503 && attempt < 50; attempt++) {
        await new Promise((r) => setTimeout(r, 100));
        started = performance.now();
        response = await deliver();
      }
      if (!response.ok) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
      const at = await sent;
      waiting.delete(id);
      if (i > 20) overhead.push(at - started - (modelMs - modelBefore)); // first 20: warm-up
      // Turns follow each other without a pause (the previous turn's bookkeeping
      // overlaps the next webhook); the baseline is sampled between them.
      if (i > 20) baseline.push(await roundTrips(server.base));
    }
    const s = summarize(overhead);
    const b = summarize(baseline);
    const note = `model requests: ${modelCalls - baselineModelCalls - modelCallsBefore} for ${TURNS + 20} turns; baseline: POST /api/ping + one model request + one sendMessage, made directly in the same run`;
    report({
      bench: "turn",
      case: `${label}: ${TURNS} turns, instant model`,
      metric: "p50 overhead",
      value: s.p50,
      unit: "ms",
      baseline: b.p50,
      ratio: Math.round((s.p50 / b.p50) * 10) / 10,
      note,
      ...(withTargets ? { target: "< 30 ms", met: s.p50 < 30 } : {}),
    });
    report({
      bench: "turn",
      case: `${label}: ${TURNS} turns, instant model`,
      metric: "p99 overhead",
      value: s.p99,
      unit: "ms",
      baseline: b.p99,
      ratio: Math.round((s.p99 / b.p99) * 10) / 10,
      ...(withTargets ? { target: "< 100 ms", met: s.p99 < 100 } : {}),
    });
  } finally {
    await server.stop();
  }
}

let nextUpdate = 1;
try {
  await bench("SQLite", {}, true);
  const postgres = await benchPostgres();
  if (!postgres) console.error(POSTGRES_SKIPPED);
  else {
    try {
      await bench("PostgreSQL", { DATABASE_URL: postgres.url }, false);
    } finally {
      await postgres.drop();
    }
  }
} finally {
  llm.close();
  telegram.close();
}
