// What recording metrics costs the webhook: the same ingest load (autocannon, 20
// connections) on two production servers started side by side, one with
// METRICS_ENABLED=true and one with false, alternating over several rounds; the
// ratio is taken per round (paired) and reported as the median. The metrics
// server is scraped after each round, and its webhook counter must match the
// acknowledged requests.
import autocannon from "autocannon";
import { privateTextUpdate } from "./loopback.ts";
import { startServer } from "./server.mts";
import { report } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3950);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 20;
const SECRET = "bench-secret";
const METRICS_TOKEN = "bench-metrics-token-0123456789";
let updateId = 1;

const headers = { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET, "accept-encoding": "gzip, deflate" };
const body = () => {
  const id = updateId++;
  return privateTextUpdate(id, 1000 + (id % 50), "Load", `load message ${id}`);
};

async function load(base: string) {
  const result = await autocannon({
    url: `${base}/api/webhooks/telegram`,
    method: "POST",
    connections: CONNECTIONS,
    duration: DURATION,
    headers,
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body() }) }],
  });
  return { rps: result.requests.average, ok: result["2xx"] };
}

async function webhookCount(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith('switchboard_webhook_requests_total{channel="telegram",status="200"}'));
  return Number(line?.split(" ").at(-1) ?? 0);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const list = (values: number[]) => values.map((v) => Math.round(v)).join(", ");

const common = { TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_BOT_TOKEN: "", LLM_PROVIDER: "", METRICS_TOKEN };
const on = await startServer(PORT, { ...common, METRICS_ENABLED: "true" });
const off = await startServer(PORT + 1, { ...common, METRICS_ENABLED: "false" });
try {
  // Warm-up: JIT and route compilation on both.
  await load(on.base);
  await load(off.base);
  const onRps: number[] = [];
  const offRps: number[] = [];
  let acknowledged = 0;
  const counted0 = await webhookCount(on.base);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so a slow spell of the machine is shared.
    const first = round % 2 === 0 ? "on" : "off";
    for (const which of first === "on" ? ["on", "off"] : ["off", "on"]) {
      const run = await load(which === "on" ? on.base : off.base);
      (which === "on" ? onRps : offRps).push(run.rps);
      if (which === "on") acknowledged += run.ok;
    }
  }
  const counted = (await webhookCount(on.base)) - counted0;
  const ratio = Math.round(median(onRps.map((v, i) => v / Math.max(offRps[i], 0.001))) * 1000) / 1000;
  report({
    bench: "metrics",
    case: `ingest with metrics on vs off, ${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s each`,
    metric: "updates/s (median)",
    value: Math.round(median(onRps)),
    unit: "req/s",
    baseline: Math.round(median(offRps)),
    ratio,
    target: "≥ 0.95× metrics off",
    met: ratio >= 0.95,
    note: `rounds: on ${list(onRps)} / off ${list(offRps)} req/s; /metrics counted ${counted} of ${acknowledged} acknowledged`,
  });
} finally {
  await on.stop();
  await off.stop();
}
