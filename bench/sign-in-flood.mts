// Webhook latency while strangers flood sign-in. The flood comes from 60 loopback
// addresses (127.0.0.2–61), 10 wrong guesses each under distinct user names: under
// each address's budget, so every guess reaches password hashing, which is the
// expensive part (scrypt on libuv's thread pool). Baseline: the same webhook
// requests with no flood, in the same run.
import { request } from "node:http";
import { randomInt } from "node:crypto";
import { startServer } from "./server.mts";
import { report, summarize } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3950);
const SECRET = "bench-secret";
const ADDRESSES = 60;
const PER_ADDRESS = 10;

function post(path: string, body: unknown, headers: Record<string, string>, localAddress?: string) {
  return new Promise<number>((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port: PORT,
        path,
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data), ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

let nextUpdate = 1;
const update = () => ({
  update_id: nextUpdate++,
  message: {
    message_id: nextUpdate,
    date: Math.floor(Date.now() / 1000),
    chat: { id: 4242, type: "group", title: "bench" },
    from: { id: 7, is_bot: false, first_name: "B" },
    text: `m${nextUpdate}`,
  },
});

async function webhookLatencies(count: number) {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const status = await post("/api/webhooks/telegram", update(), { "x-telegram-bot-api-secret-token": SECRET });
    if (status !== 200) throw new Error(`webhook answered ${status}`);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** One server, one flood: webhook latency without and during it. */
async function measure(hashConcurrency: number) {
  const server = await startServer(PORT, {
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_BOT_TOKEN: "",
    LLM_PROVIDER: "",
    SIGN_IN_HASH_CONCURRENCY: String(hashConcurrency),
  });
  try {
    await webhookLatencies(50); // warm-up
    const baseline = await webhookLatencies(200);
    const statuses: number[] = [];
    let flooding = true;
    const flood = (async () => {
      const queue = Array.from({ length: ADDRESSES * PER_ADDRESS }, (_, i) => ({
        address: `127.0.0.${2 + (i % ADDRESSES)}`,
        name: `nobody${i}-${randomInt(1e9)}`,
      }));
      // 40 guesses in flight at a time, as a scripted attacker would.
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          for (let g = queue.shift(); g; g = queue.shift())
            statuses.push(await post("/api/auth/login", { name: g.name, password: "guess" }, {}, g.address).catch(() => 0));
        }),
      );
      flooding = false;
    })();
    const during = await webhookLatencies(200);
    const outlasted = flooding;
    await flood;
    const count = (s: number) => statuses.filter((x) => x === s).length;
    return {
      baseline,
      during,
      note: `${statuses.length} sign-ins from ${ADDRESSES} addresses: ${count(401)} hashed (401), ${count(429)} turned away (429); flood ${outlasted ? "outlasted" : "ended before"} the webhook requests`,
    };
  } finally {
    await server.stop();
  }
}

// 64 concurrent hashes stands for the old, unbounded behaviour; 1 is the default now.
for (const concurrency of [64, 1]) {
  const { baseline, during, note } = await measure(concurrency);
  const label = concurrency === 1 ? "hashing bounded to 1 (default)" : `hashing up to ${concurrency} at once (≈ unbounded)`;
  report({
    bench: "sign-in flood",
    case: `webhook POST during a 600-guess sign-in flood, ${label}`,
    metric: "p50 latency",
    value: during.p50,
    unit: "ms",
    baseline: baseline.p50,
    ratio: Math.round((during.p50 / baseline.p50) * 100) / 100,
    note,
  });
  report({
    bench: "sign-in flood",
    case: `webhook POST during a 600-guess sign-in flood, ${label}`,
    metric: "p99 latency",
    value: during.p99,
    unit: "ms",
    baseline: baseline.p99,
    ratio: Math.round((during.p99 / baseline.p99) * 100) / 100,
  });
}
