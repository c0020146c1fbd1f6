// Webhook ingest on a production build, SQLite: acknowledged updates/s at full
// load, and p50/p99 acknowledge latency at a fixed rate of half the trivial
// route's maximum, each against POST /api/ping on the same server in the same run.
import autocannon from "autocannon";
import Database from "better-sqlite3";
import { sqlitePath } from "../lib/db/migrations.mjs";
import { startServer } from "./server.mts";
import { report } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3950);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 20;
const SECRET = "bench-secret";
let updateId = 1;

function updateBody() {
  const id = updateId++;
  const chat = 1000 + (id % 50);
  return JSON.stringify({
    update_id: id,
    message: { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: chat, type: "private", first_name: "Load" }, from: { id: chat, is_bot: false, first_name: "Load" }, text: `load message ${id}` },
  });
}

type Run = { rps: number; p50: number; p99: number; ok: number; non2xx: number };
async function load(url: string, body: () => string, headers: Record<string, string>, rate?: number): Promise<Run> {
  const result = await autocannon({
    url,
    method: "POST",
    connections: CONNECTIONS,
    duration: DURATION,
    ...(rate ? { overallRate: rate } : {}),
    headers: { "content-type": "application/json", ...headers },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body() }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok: result["2xx"], non2xx: result.non2xx };
}

const server = await startServer(PORT, { TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_BOT_TOKEN: "", LLM_PROVIDER: "" });
try {
  const ping = `${server.base}/api/ping`;
  const hook = `${server.base}/api/webhooks/telegram`;
  const tiny = () => JSON.stringify({ update_id: 1, message: { text: "x" } });
  await load(ping, tiny, {}); // warm-up: JIT and route compilation
  const warm = await load(hook, updateBody, { "x-telegram-bot-api-secret-token": SECRET });

  const trivialMax = await load(ping, tiny, {});
  const ingestMax = await load(hook, updateBody, { "x-telegram-bot-api-secret-token": SECRET });
  const rate = Math.max(10, Math.floor(trivialMax.rps / 2));
  const trivialFixed = await load(ping, tiny, {}, rate);
  const ingestFixed = await load(hook, updateBody, { "x-telegram-bot-api-secret-token": SECRET }, rate);

  // Durability: every acknowledged update is in the database.
  const db = new Database(sqlitePath(server.databaseUrl), { readonly: true });
  const stored = (db.prepare(`SELECT COUNT(*) AS n FROM "InboundUpdate"`).get() as { n: number }).n;
  db.close();
  const acknowledged = warm.ok + ingestMax.ok + ingestFixed.ok;

  report({ bench: "ingest", case: `max throughput, ${CONNECTIONS} connections, ${DURATION} s`, metric: "updates/s", value: Math.round(ingestMax.rps), unit: "req/s", baseline: Math.round(trivialMax.rps), ratio: Math.round((ingestMax.rps / trivialMax.rps) * 100) / 100, target: "≥ 0.8× the trivial route", met: ingestMax.rps >= 0.8 * trivialMax.rps, note: `non-2xx: ${ingestMax.non2xx}` });
  report({ bench: "ingest", case: `fixed rate ${rate}/s`, metric: "p50 ack latency", value: ingestFixed.p50, unit: "ms", baseline: trivialFixed.p50, ratio: Math.round((ingestFixed.p50 / Math.max(trivialFixed.p50, 0.001)) * 100) / 100 });
  report({ bench: "ingest", case: `fixed rate ${rate}/s`, metric: "p99 ack latency", value: ingestFixed.p99, unit: "ms", baseline: trivialFixed.p99, ratio: Math.round((ingestFixed.p99 / Math.max(trivialFixed.p99, 0.001)) * 100) / 100, target: "≤ 1.25× the trivial route", met: ingestFixed.p99 <= 1.25 * trivialFixed.p99 });
  report({ bench: "ingest", case: "durability (synchronous=NORMAL, WAL)", metric: "stored / sent", value: stored, unit: "updates", baseline: acknowledged, met: stored >= acknowledged, target: "every acknowledged update stored", note: "value: updates in InboundUpdate; baseline: 2xx answers counted by autocannon (requests cut off at the end of a run are neither)" });
} finally {
  await server.stop();
}
