// Time to answer at the speed of the model, on a production build: N private
// chats each send one message at once; a loopback OpenAI-compatible model answers
// every call after a fixed latency L with a `reply` tool call; a loopback Bot API
// records each sendMessage. Per chat: the time from the webhook's 200 to the bot's
// sendMessage, reported as p50/p99 and as a ratio to L. D is the configured burst
// debounce, which every first answer waits by design. Cases:
//   1,000 chats on SQLite (plus the server's peak RSS);
//   the same on PostgreSQL with two instances sharing the database (BENCH_DATABASE_URL or TEST_DATABASE_URL);
//   one chat with 200 queued messages plus 100 fresh chats (fairness);
//   a burst of 5 messages within 1 s in one chat (one model call, one answer);
//   the old fixed defaults (WORKER_CONCURRENCY = LLM_CONCURRENCY = 50) on the same build, as the baseline;
//   a provider that answers 429 with Retry-After: 1 above 200 calls in flight (the adaptive limit finds it);
//   the naive bot (bench/naive-bot.mjs: grammY + generateText with a reply tool, nothing stored) under the
//   same load, answering inside its webhook and after its 200: the user's wait and CPU, ours over its.
// Every case runs with the default limits unless it says otherwise (BENCH_LIMITS=hand sets both
// to chats + 100, as the operator's knobs did before the model-call limit adapted).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { answerCompletion, body, fakeBotApi, listen, privateTextUpdate } from "./loopback.ts";
import { benchPostgres, POSTGRES_SKIPPED } from "./postgres.ts";
import { startServer } from "./server.mts";
import { report, round, summarize } from "./stats.ts";

const PORTS = [Number(process.env.BENCH_PORT ?? 3950), Number(process.env.BENCH_PORT_2 ?? 3951), Number(process.env.BENCH_PORT_3 ?? 3952)];
const CHATS = Number(process.env.BENCH_CHATS ?? 1000);
const L = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 2000);
const D = Number(process.env.BENCH_DEBOUNCE_MS ?? 1000);
/** Webhook requests in flight at once, as a platform delivers them (Telegram allows up to 100 connections). */
const IN_FLIGHT = 100;
const SECRET = "bench-secret";
const TARGET_MS = 1.5 * L + D;
/** BENCH_CASES=burst,sqlite,naive,naive-detached,old-defaults,capacity,fairness,postgres (default: all) runs only those cases, for repeated runs of one. */
const CASES = new Set(
  (process.env.BENCH_CASES ?? "burst,sqlite,naive,naive-detached,old-defaults,capacity,fairness,postgres").split(",").map((c) => c.trim()),
);
/** The provider's capacity in the capacity case: calls above it in flight are answered 429 with Retry-After: 1. */
const CAPACITY = Number(process.env.BENCH_CAPACITY ?? 200);
const API_TOKEN = "bench-api-token-0123456789";
const target = `p99 ≤ 1.5 × L + D = ${TARGET_MS} ms`;
/** BENCH_SETTINGS='{"streamDrafts":false}': settings every case's server runs with (PATCH /api/v1/settings), to price one feature. */
const SETTINGS = process.env.BENCH_SETTINGS ? (JSON.parse(process.env.BENCH_SETTINGS) as Record<string, unknown>) : null;

/** Every model call, by the chat it came from (the sender's name is `C<chat id>`), with its prompt text. */
let calls: { chat: number; prompt: string; at: number; streamed: boolean }[] = [];
let inFlight = 0;
let maxInFlight = 0;
/** Calls above this many in flight are refused with 429 (0: no limit). */
let capacity = 0;
let refused = 0;
const llm = await listen(async (req, res) => {
  const payload = await body(req);
  const last = payload.messages.at(-1);
  if (capacity > 0 && last.role !== "tool" && inFlight >= capacity) {
    refused += 1;
    res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
    return res.end(JSON.stringify({ error: { message: "rate limited", type: "rate_limit_error" } }));
  }
  if (last.role === "tool") return answerCompletion(res, payload, { content: "" }, "slow");
  const prompt = payload.messages
    .map((m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
  const chat = Number(/from C(\d+)/.exec(String(last.content))?.[1] ?? 0);
  calls.push({ chat, prompt, at: performance.now(), streamed: payload.stream === true });
  inFlight += 1;
  maxInFlight = Math.max(maxInFlight, inFlight);
  await new Promise((r) => setTimeout(r, L));
  inFlight -= 1;
  answerCompletion(res, payload, { reply: "ok" }, "slow");
});

/** sendMessage times by chat. */
let sends = new Map<number, number[]>();
/** When each chat's webhook was first sent (before its 200: what a user waits includes that wait too). */
let requested = new Map<number, number>();
/**
 * When the case's users all sent (its first webhook's send): a platform delivers a burst over at
 * most 100 connections, so a bot that holds each one for the model makes the rest wait at the
 * platform, a wait "from the webhook's send" does not see.
 */
let burstStart = 0;
let nextId = 900_000;
const telegram = await fakeBotApi((payload) => {
  const chat = Number(payload.chat_id);
  sends.set(chat, [...(sends.get(chat) ?? []), performance.now()]);
  return { message_id: nextId++, date: Math.floor(Date.now() / 1000), chat: { id: chat, type: "private" }, text: payload.text };
});

let updateId = 1;
const update = (chat: number, text: string) => privateTextUpdate(updateId++, chat, `C${chat}`, text);

/** Posts the updates with IN_FLIGHT requests at a time, round-robin over the servers; resolves with each chat's 200 time. */
async function post(bases: string[], updates: { chat: number; text: string }[]) {
  const acked = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < updates.length) {
      const i = next++;
      const { chat, text } = updates[i];
      const payload = update(chat, text);
      if (requested.size === 0) burstStart = performance.now();
      if (!requested.has(chat)) requested.set(chat, performance.now());
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`${bases[i % bases.length]}/api/webhooks/telegram`, {
          method: "POST",
          // As Telegram delivers: its Bot API server sends Accept-Encoding with every update.
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET, "accept-encoding": "gzip, deflate" },
          body: payload,
        });
        await response.arrayBuffer();
        if (response.status === 200) break;
        // 503 until the server has the bot's identity (its first getMe): Telegram delivers again, so do we.
        if (response.status !== 503 || attempt >= 50) throw new Error(`webhook answered ${response.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      acked.set(chat, performance.now());
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, updates.length) }, worker));
  return acked;
}

async function waitForAnswers(chats: number[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (chats.some((c) => !sends.has(c)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, L + 500)); // anything answered twice would show by now
}

/** Peak resident memory of the server process tree from `pid` (the start script and any server it spawned), in MiB. */
function peakRssMiB(pid: number): number {
  // The start script may serve in-process (then it has no server child): count it too.
  const peaks = processTree(pid).map((p) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0));
  return Math.round(Math.max(0, ...peaks) / 1024);
}

/** The process tree from `pid`: the start script and any server it spawned. */
function processTree(pid: number): number[] {
  try {
    return [
      pid,
      ...readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number).flatMap(processTree),
    ];
  } catch {
    return [];
  }
}

/** User + system CPU (ms) from a /proc `stat` file (a process's or a thread's), or its system (kernel) part alone; 0 once it is gone. */
function statMs(path: string, only?: "system"): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(path, "utf8").split(")").at(-1)!.trim().split(" ");
    return ((only === "system" ? 0 : Number(fields[11])) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

/**
 * CPU time (user + system) the server process tree from `pid` has used so far, in ms:
 * a figure that, unlike wall-clock latency, hardly moves with what else the machine runs.
 */
function cpuMs(pid: number, only?: "system"): number {
  return processTree(pid).reduce((sum, p) => sum + statMs(`/proc/${p}/stat`, only), 0);
}

/**
 * CPU time (ms) of the JavaScript main thread of each process in the server tree from `pid`
 * (a process's main thread has its pid as thread id). Next, the pipeline and the SQLite
 * statements run there; garbage collection helpers, the WAL checkpointer and libuv's pool do not.
 */
function mainThreadMs(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + statMs(`/proc/${p}/task/${p}/stat`), 0);
}

/** The whole machine's CPU so far from /proc/stat, in ms over all cores: busy and total. */
function machineMs(): { busy: number; total: number } {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: (total - idle) * 10, total: total * 10 };
}

/** This (the bench's) process's CPU so far, in ms: it posts the webhooks and plays the model and the Bot API. */
const benchMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The database statements the servers sent so far, by path (sql: hand-written; prisma): switchboard_db_statements_total on /metrics. */
async function statementCounts(bases: string[]) {
  const total = { sql: 0, prisma: 0 };
  for (const base of bases) {
    const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).then((r) => r.text());
    for (const m of text.matchAll(/^switchboard_db_statements_total\{[^}]*path="(sql|prisma)"[^}]*\} ([0-9.e+-]+)$/gm))
      total[m[1] as "sql" | "prisma"] += Number(m[2]);
  }
  return total;
}

/** The application name the PostgreSQL cases' servers connect with (PGAPPNAME), to find their backends. */
const PG_APP = `sb-bench-${process.pid}`;

/**
 * CPU time (ms) of the PostgreSQL backends serving the bench's servers (found by their
 * application name; PostgreSQL runs on this machine), sampled until `stop`: each
 * backend's CPU grows only, so its last sample minus its first (or 0, for one that
 * connected during the case) is its share, also when it disconnects before the end.
 */
function databaseCpu(query: (sql: string) => Promise<unknown[]>) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const ticks = (pid: number) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(")").at(-1)!.trim().split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return undefined;
    }
  };
  const sample = async (initial: boolean) => {
    const rows = (await query(`SELECT pid FROM pg_stat_activity WHERE application_name = '${PG_APP}'`)) as { pid: number }[];
    for (const { pid } of rows) {
      const cpu = ticks(pid);
      if (cpu === undefined) continue;
      if (!first.has(pid)) first.set(pid, initial ? cpu : 0);
      last.set(pid, cpu);
    }
  };
  let running = true;
  const loop = (async () => {
    await sample(true);
    while (running) {
      await new Promise((r) => setTimeout(r, 250));
      await sample(false);
    }
  })();
  return async () => {
    running = false;
    await loop;
    let ms = 0;
    for (const [pid, cpu] of last) ms += cpu - (first.get(pid) ?? 0);
    return { ms, backends: last.size };
  };
}

/** The worker's limits: the defaults, the old fixed defaults, or set by hand to the load (BENCH_LIMITS=hand). */
function limitsEnv(limits: "default" | "old"): Record<string, string> {
  if (limits === "old") return { WORKER_CONCURRENCY: "50", LLM_CONCURRENCY: "50" };
  if (process.env.BENCH_LIMITS === "hand") return { WORKER_CONCURRENCY: String(CHATS + 100), LLM_CONCURRENCY: String(CHATS + 100) };
  return {};
}

function env(databaseUrl?: string, limits: "default" | "old" = "default") {
  return {
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_BOT_TOKEN: "1:bench",
    TELEGRAM_API_ROOT: telegram.url,
    LLM_PROVIDER: "openai-compatible",
    LLM_MODEL: "slow",
    LLM_BASE_URL: `${llm.url}/v1`,
    SWITCHBOARD_API_TOKEN: API_TOKEN,
    ...limitsEnv(limits),
    BURST_DEBOUNCE_MS: String(D),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, PGAPPNAME: PG_APP } : {}),
  };
}

/** Resident memory of the server process tree from `pid` now, in MiB (as peakRssMiB, but VmRSS). */
function rssMiB(pid: number): number {
  const status = (p: number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  return Math.round(Math.max(status(pid), ...children.map(status)) / 1024);
}

/** The model-call limit the server reports (GET /api/v1/queue), sampled every 250 ms while `until` runs. */
async function sampleLimit<T>(base: string, until: Promise<T>) {
  const samples: { at: number; limit: number; reason: string }[] = [];
  let done = false;
  void until.finally(() => (done = true));
  const loop = (async () => {
    while (!done) {
      const r = await fetch(`${base}/api/v1/queue`, { headers: { authorization: `Bearer ${API_TOKEN}` } }).catch(() => null);
      const model = r?.ok
        ? ((await r.json()) as { instance: { model: { limit: number; lastChange: { reason: string } } | null } }).instance.model
        : null;
      if (model) samples.push({ at: performance.now(), limit: model.limit, reason: model.lastChange.reason });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const value = await until;
  await loop;
  return { value, samples };
}

function reset() {
  calls = [];
  sends = new Map();
  requested = new Map();
  maxInFlight = 0;
  refused = 0;
}

/** Latency per chat from its 200 to its (first) sendMessage; every chat answered exactly once. */
function latencies(chats: number[], acked: Map<number, number>) {
  const samples = chats.filter((c) => sends.has(c)).map((c) => sends.get(c)![0] - acked.get(c)!);
  const once = chats.filter((c) => sends.get(c)?.length === 1).length;
  return {
    s: summarize(samples),
    once,
    unanswered: chats.filter((c) => !sends.has(c)).length,
    twice: chats.filter((c) => (sends.get(c)?.length ?? 0) > 1).length,
  };
}

function reportLatency(
  label: string,
  chats: number[],
  acked: Map<number, number>,
  extra: string,
  goal: { ms: number; text: string } = { ms: TARGET_MS, text: target },
) {
  const { s, once, unanswered, twice } = latencies(chats, acked);
  // Where the time goes: 200 → the model call starts (debounce, claim, context), and the call's end → sendMessage.
  const firstCall = new Map<number, number>();
  for (const c of calls) if (!firstCall.has(c.chat)) firstCall.set(c.chat, c.at);
  const before = summarize(chats.filter((c) => firstCall.has(c)).map((c) => firstCall.get(c)! - acked.get(c)!));
  const after = summarize(chats.filter((c) => firstCall.has(c) && sends.has(c)).map((c) => sends.get(c)![0] - firstCall.get(c)! - L));
  const fromRequest = summarize(chats.filter((c) => sends.has(c)).map((c) => sends.get(c)![0] - requested.get(c)!));
  const toAck = summarize(chats.map((c) => acked.get(c)! - requested.get(c)!));
  extra += `; 200 → model call p50 ${before.p50} ms, p99 ${before.p99} ms; model answer → sendMessage p50 ${after.p50} ms, p99 ${after.p99} ms; webhook sent → 200 p50 ${toAck.p50} ms, p99 ${toAck.p99} ms; webhook sent → answer p50 ${fromRequest.p50} ms, p99 ${fromRequest.p99} ms`;
  const ratio = (v: number) => round(v / L, 2);
  const allOnce = once === chats.length;
  const note = `L = ${L} ms, D = ${D} ms; p50 ${s.p50} ms (${ratio(s.p50)} × L), p99 ${s.p99} ms (${ratio(s.p99)} × L), max ${s.max} ms; answered exactly once: ${once}/${chats.length} (unanswered ${unanswered}, twice ${twice}); model calls in flight at most ${maxInFlight}; ${extra}`;
  report({
    bench: "answer latency",
    case: label,
    metric: "p50 time to answer",
    value: s.p50,
    unit: "ms",
    baseline: L,
    ratio: ratio(s.p50),
    note,
  });
  report({
    bench: "answer latency",
    case: label,
    metric: "p99 time to answer",
    value: s.p99,
    unit: "ms",
    baseline: L,
    ratio: ratio(s.p99),
    target: `${goal.text}, each chat answered once`,
    met: s.p99 <= goal.ms && allOnce,
  });
  // What the user waits: from the webhook being sent (under a burst the acknowledgements queue too).
  report({
    bench: "answer latency",
    case: label,
    metric: "p99 time to answer from the webhook's send",
    value: fromRequest.p99,
    unit: "ms",
    baseline: L,
    ratio: ratio(fromRequest.p99),
    note: `p50 ${fromRequest.p50} ms (${ratio(fromRequest.p50)} × L); webhook sent → 200 p50 ${toAck.p50} ms, p99 ${toAck.p99} ms`,
  });
}

const chatsFrom = (first: number, n: number) => Array.from({ length: n }, (_, i) => first + i);

/** Starts a server with the case's environment and BENCH_SETTINGS applied. */
async function start(port: number, environment: Record<string, string>) {
  const server = await startServer(port, environment);
  if (SETTINGS) {
    const r = await fetch(`${server.base}/api/v1/settings`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(SETTINGS),
    });
    if (!r.ok) throw new Error(`BENCH_SETTINGS refused: ${r.status} ${await r.text()}`);
  }
  await warmUp(server);
  return server;
}

let warmChat = 5_000_000;
/**
 * A fresh server goes on loading its routes' modules for seconds after it first answers
 * /api/health (Next preloads them): 2–4 s of CPU that would land on the first case's chats.
 * Every case starts on a server that has answered one chat and gone quiet, as in production.
 */
async function warmUp(server: { base: string; pid: number }) {
  const chat = warmChat++;
  await post([server.base], [{ chat, text: "warming up" }]);
  const deadline = Date.now() + 30_000;
  while (!sends.has(chat) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (let before = cpuMs(server.pid); Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMs(server.pid);
    if (now - before < 50) break; // under a tenth of a core
    before = now;
  }
}

async function manyChats(
  label: string,
  bases: string[],
  pids: number[],
  first: number,
  goal?: { ms: number; text: string },
  pgQuery?: (sql: string) => Promise<unknown[]>,
) {
  reset();
  const chats = chatsFrom(first, CHATS);
  const statementsBefore = await statementCounts(bases);
  const dbCpu = pgQuery ? databaseCpu(pgQuery) : undefined;
  const cpuBefore = pids.map((p) => cpuMs(p));
  const systemBefore = pids.map((p) => cpuMs(p, "system"));
  const mainBefore = pids.map(mainThreadMs);
  const benchBefore = benchMs();
  const machineBefore = machineMs();
  const rssBefore = pids.map(rssMiB);
  const start = performance.now();
  // BENCH_TIMELINE=1: per 250 ms, the servers' CPU use (1.0 = one core busy), to see where they saturate.
  const cpuSamples: { at: number; cpu: number }[] = [];
  const sampler = process.env.BENCH_TIMELINE
    ? setInterval(() => cpuSamples.push({ at: performance.now(), cpu: pids.map(cpuMs).reduce((a, b) => a + b, 0) }), 250)
    : undefined;
  const acked = await post(
    bases,
    chats.map((chat) => ({ chat, text: `hello from ${chat}` })),
  );
  const postedMs = Math.round(performance.now() - start);
  const cpuPosted = pids.map(cpuMs);
  // Who held the cores while the webhooks came in (the busiest stretch): the servers' main threads,
  // the rest of the servers (GC helpers, the checkpointer), this process, and what stayed idle.
  const mainPosted = pids.map(mainThreadMs).reduce((a, c, i) => a + c - mainBefore[i], 0);
  const benchPosted = benchMs() - benchBefore;
  const machinePosted = machineMs();
  const machineBusy = machinePosted.busy - machineBefore.busy;
  const machineTotal = machinePosted.total - machineBefore.total;
  await waitForAnswers(chats, 120_000);
  clearInterval(sampler);
  if (sampler) printTimeline(start, cpuSamples, acked);
  const rss = pids.map(peakRssMiB);
  // Everything the servers did for these chats (ingest, claims, turns, sends), per chat; the wait after the last answer is idle.
  const cpu = pids.map((p, i) => cpuMs(p) - cpuBefore[i]);
  // The kernel's part: on PostgreSQL each round trip is a write to the backend's socket and a wake-up.
  const system = pids.map((p, i) => cpuMs(p, "system") - systemBefore[i]);
  const cpuPerChat = round(cpu.reduce((a, b) => a + b, 0) / CHATS, 2);
  const database = await dbCpu?.();
  const statementsAfter = await statementCounts(bases);
  // Memory per waiting turn: the peak's growth over the idle server, per model call that was waiting at once.
  const perTurnKiB = Math.round(
    ((rss.reduce((a, b) => a + b, 0) - rssBefore.reduce((a, b) => a + b, 0)) * 1024) / Math.max(1, maxInFlight),
  );
  reportLatency(
    label,
    chats,
    acked,
    `peak server RSS ${rss.map((r) => `${r} MiB`).join(" + ")} (${rssBefore.map((r) => `${r} MiB`).join(" + ")} before the chats: about ${perTurnKiB} KiB per turn waiting on the model, ${maxInFlight} at most); ${refused} calls refused with 429; server CPU ${cpu.map((c) => `${c} ms`).join(" + ")} (${cpuPerChat} ms per chat, ${cpuPosted.reduce((a, c, i) => a + c - cpuBefore[i], 0)} ms of it while the ${CHATS} webhooks were posted, in ${postedMs} ms); ${calls.length} model calls (${calls.filter((c) => c.streamed).length} streamed for drafts)`,
    goal,
  );
  const serverPosted = cpuPosted.reduce((a, c, i) => a + c - cpuBefore[i], 0);
  const cores = (ms: number) => round(ms / postedMs, 2);
  report({
    bench: "answer latency",
    case: label,
    metric: "server main thread busy while the webhooks came in",
    value: round(mainPosted / pids.length / postedMs, 2),
    unit: "of one core per instance",
    note: `over the ${postedMs} ms the ${CHATS} webhooks took: the servers' main threads ${cores(mainPosted)} cores, their other threads ${cores(serverPosted - mainPosted)}, this bench process (webhooks, fake model, fake Bot API) ${cores(benchPosted)}, the whole machine ${round(machineBusy / postedMs, 2)} of ${round(machineTotal / postedMs, 2)} cores busy`,
  });
  report({
    bench: "answer latency",
    case: label,
    metric: "server CPU per chat",
    value: cpuPerChat,
    unit: "ms",
    note: `user + system time of the server process tree(s) over the case, divided by ${CHATS} chats: ${cpu.join(", ")} ms, of which system (kernel) ${system.join(", ")} ms`,
  });
  const answered = chats.filter((c) => sends.has(c)).length || 1;
  const per = (v: number) => round(v / answered, 2);
  const sql = statementsAfter.sql - statementsBefore.sql;
  const prisma = statementsAfter.prisma - statementsBefore.prisma;
  report({
    bench: "answer latency",
    case: label,
    metric: "database statements per answered chat",
    value: per(sql + prisma),
    unit: "statements",
    note: `${sql} hand-written + ${prisma} Prisma statements for ${answered} answered chats (BEGIN/COMMIT not counted; ingest, claims, turns, sends and the two /metrics scrapes)`,
  });
  if (database)
    report({
      bench: "answer latency",
      case: label,
      metric: "database CPU per answered chat",
      value: per(database.ms),
      unit: "ms",
      note: `user + system time of the ${database.backends} PostgreSQL backends serving the servers (application_name ${PG_APP}), over the case: ${database.ms} ms; the servers' own: ${cpu.reduce((a, b) => a + b, 0)} ms (${per(cpu.reduce((a, b) => a + b, 0))} ms per answered chat)`,
    });
  report({
    bench: "answer latency",
    case: label,
    metric: "server peak RSS",
    value: Math.max(...rss),
    unit: "MiB",
    note: `${pids.length} instance(s): ${rss.join(", ")} MiB`,
  });
  const burst = userWait(chats, "burst");
  report({
    bench: "answer latency",
    case: label,
    metric: "p99 time to answer from the users' send",
    value: burst.p99,
    unit: "ms",
    baseline: L,
    ratio: round(burst.p99 / L, 2),
    note: `p50 ${burst.p50} ms: every user sent at the burst's start; the platform delivers over ${IN_FLIGHT} connections`,
  });
  return { wait: userWait(chats), burst, cpuPerAnswer: per(cpu.reduce((a, b) => a + b, 0)) };
}

/** What each answered chat's user waited: from its webhook's send, or from the burst's start (all users sent at once), to the answer. */
function userWait(chats: number[], from: "webhook" | "burst" = "webhook") {
  return summarize(chats.filter((c) => sends.has(c)).map((c) => sends.get(c)![0] - (from === "burst" ? burstStart : requested.get(c)!)));
}

/** Starts bench/naive-bot.mjs (grammY webhookCallback + generateText with a reply tool) on `port`. */
async function startNaiveBot(port: number, mode: "inline" | "detached") {
  const child = spawn(process.env.BENCH_SERVER_NODE || process.execPath, ["bench/naive-bot.mjs"], {
    env: { ...process.env, ...env(), PORT: String(port), NAIVE_MODE: mode, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ; ) {
    if (child.exitCode !== null) throw new Error(`the naive bot exited with ${child.exitCode}`);
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error("the naive bot did not start in time");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid!,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/**
 * The bot a user would write instead (bench/naive-bot.mjs) under the same load, posted
 * with the same 100 connections a platform uses, beside our SQLite case of this run:
 * the user's wait and CPU per answered chat, ours over its.
 */
async function naiveCase(mode: "inline" | "detached", ours: Awaited<ReturnType<typeof manyChats>> | null) {
  const bot = await startNaiveBot(PORTS[2], mode);
  try {
    await warmUp(bot);
    reset();
    const chats = chatsFrom(mode === "inline" ? 60_000 : 70_000, CHATS);
    const cpuBefore = cpuMs(bot.pid);
    await post(
      [bot.base],
      chats.map((chat) => ({ chat, text: `hello from ${chat}` })),
    );
    await waitForAnswers(chats, 180_000);
    const { once, unanswered, twice } = latencies(chats, new Map(chats.map((c) => [c, requested.get(c)!])));
    const wait = userWait(chats);
    const answered = chats.length - unanswered || 1;
    const cpuPerAnswer = round((cpuMs(bot.pid) - cpuBefore) / answered, 2);
    const label = `${CHATS} chats at once, the naive bot (${mode === "inline" ? "answers inside its webhook" : "answers after its 200"})`;
    const burst = userWait(chats, "burst");
    const noOurs = "ours not measured in this run (add the sqlite case)";
    const waits = (metric: string, theirs: ReturnType<typeof summarize>, mine: ReturnType<typeof summarize> | undefined, how: string) =>
      report({
        bench: "answer latency",
        case: label,
        metric,
        value: theirs.p99,
        unit: "ms",
        baseline: L,
        ratio: round(theirs.p99 / L, 2),
        note: `p50 ${theirs.p50} ms (${how}); answered exactly once ${once}/${chats.length} (unanswered ${unanswered}, twice ${twice}); ${
          mine
            ? `ours this run p50 ${mine.p50} ms, p99 ${mine.p99} ms; ours over its: p50 ${round(mine.p50 / theirs.p50, 2)}, p99 ${round(mine.p99 / theirs.p99, 2)}`
            : noOurs
        }`,
      });
    waits("p99 time to answer from the webhook's send", wait, ours?.wait, "from each webhook's send");
    waits("p99 time to answer from the users' send", burst, ours?.burst, `every user sent at the burst's start; ${IN_FLIGHT} connections`);
    report({
      bench: "answer latency",
      case: label,
      metric: "CPU per answered chat",
      value: cpuPerAnswer,
      unit: "ms",
      note: `user + system time of the bot's process over the case; ${
        ours ? `ours this run ${ours.cpuPerAnswer} ms; ours over its: ${round(ours.cpuPerAnswer / cpuPerAnswer, 2)}` : noOurs
      }`,
    });
  } finally {
    await bot.stop();
  }
}

/** Per 250 ms from `start`: webhooks acknowledged, model calls started, answers sent, and the servers' CPU (cores busy). */
function printTimeline(start: number, cpu: { at: number; cpu: number }[], acked: Map<number, number>) {
  const bucket = (t: number) => Math.floor((t - start) / 250);
  const count = (times: number[]) => {
    const m = new Map<number, number>();
    for (const t of times) m.set(bucket(t), (m.get(bucket(t)) ?? 0) + 1);
    return m;
  };
  const acks = count([...acked.values()]);
  const starts = count(calls.map((c) => c.at));
  const sent = count([...sends.values()].map((t) => t[0]));
  const lines = ["t (s)  acked  model calls  sent  server cores"];
  for (let i = 1; i < cpu.length; i++) {
    const b = bucket(cpu[i].at);
    const cores = (cpu[i].cpu - cpu[i - 1].cpu) / (cpu[i].at - cpu[i - 1].at);
    lines.push(
      `${(b / 4).toFixed(2).padStart(5)}  ${String(acks.get(b) ?? 0).padStart(5)}  ${String(starts.get(b) ?? 0).padStart(11)}  ${String(sent.get(b) ?? 0).padStart(4)}  ${cores.toFixed(2)}`,
    );
  }
  console.error(lines.join("\n"));
}

async function fairness(bases: string[], first: number) {
  reset();
  const busy = first;
  // 200 messages queued in one chat (sent before anything else) …
  await post(
    bases,
    Array.from({ length: 200 }, (_, i) => ({ chat: busy, text: `queued ${i}` })),
  );
  // … then 100 fresh chats, one message each.
  const fresh = chatsFrom(first + 1, 100);
  const acked = await post(
    bases,
    fresh.map((chat) => ({ chat, text: `fresh ${chat}` })),
  );
  await waitForAnswers([...fresh, busy], 120_000);
  reportLatency(
    "1 chat with 200 queued + 100 fresh chats: the fresh chats",
    fresh,
    acked,
    `the busy chat got ${sends.get(busy)?.length ?? 0} answers from ${calls.filter((c) => c.chat === busy).length} model calls for its 200 messages`,
  );
}

/**
 * A provider that holds CAPACITY calls and answers 429 (Retry-After: 1) above that, with the
 * default limits: every chat answered once, the limit near the capacity, the p99 within
 * twice the ideal for that capacity (D, then ceil(chats / capacity) rounds of L).
 */
async function capacityCase() {
  const server = await start(PORTS[0], env());
  capacity = CAPACITY;
  try {
    const ideal = D + Math.ceil(CHATS / CAPACITY) * L;
    const label = `${CHATS} chats at once, SQLite, a provider that answers 429 above ${CAPACITY} calls in flight`;
    const { samples } = await sampleLimit(
      server.base,
      manyChats(label, [server.base], [server.pid], 50_000, {
        ms: 2 * ideal,
        text: `p99 ≤ 2 × the ideal for that capacity = ${2 * ideal} ms`,
      }),
    );
    const second = samples.slice(Math.floor(samples.length / 2)).map((x) => x.limit);
    const median = [...second].sort((a, b) => a - b)[Math.floor(second.length / 2)] ?? NaN;
    const trail = samples.filter((x, i) => i === 0 || x.limit !== samples[i - 1].limit).map((x) => `${x.limit} (${x.reason})`);
    report({
      bench: "answer latency",
      case: label,
      metric: "model-call limit, median over the second half",
      value: median,
      unit: "calls",
      baseline: CAPACITY,
      ratio: round(median / CAPACITY, 2),
      target: `near the capacity (${CAPACITY})`,
      met: median >= 0.6 * CAPACITY && median <= 1.25 * CAPACITY,
      note: `limit as sampled every 250 ms: ${trail.join(" → ")}; 429s answered: ${refused}`,
    });
  } finally {
    capacity = 0;
    await server.stop();
  }
}

async function burst(base: string, chat: number) {
  reset();
  const texts = Array.from({ length: 5 }, (_, i) => `burst part ${i + 1} of 5`);
  const started = performance.now();
  for (const text of texts) {
    await post([base], [{ chat, text }]);
    await new Promise((r) => setTimeout(r, 200));
  }
  const spread = Math.round(performance.now() - started - 200);
  await waitForAnswers([chat], 30_000);
  const mine = calls.filter((c) => c.chat === chat);
  const holdsAll = mine.length === 1 && texts.every((t) => mine[0].prompt.includes(t));
  const answers = sends.get(chat)?.length ?? 0;
  report({
    bench: "answer latency",
    case: `burst of 5 messages within ${spread} ms, one chat`,
    metric: "model calls / answers",
    value: mine.length,
    unit: "call(s)",
    target: "1 call holding all 5 messages, 1 answer",
    met: holdsAll && answers === 1,
    note: `${mine.length} model call(s), ${answers} answer(s); the call's prompt ${holdsAll ? "holds" : "does not hold"} all 5 messages`,
  });
}

let ours: Awaited<ReturnType<typeof manyChats>> | null = null;
try {
  const sqlite = CASES.has("burst") || CASES.has("sqlite") || CASES.has("fairness") ? await start(PORTS[0], env()) : null;
  if (sqlite)
    try {
      if (CASES.has("burst")) await burst(sqlite.base, 1);
      if (CASES.has("sqlite")) ours = await manyChats(`${CHATS} chats at once, SQLite`, [sqlite.base], [sqlite.pid], 10_000);
      if (CASES.has("fairness")) await fairness([sqlite.base], 20_000);
    } finally {
      await sqlite.stop();
    }
  if (CASES.has("naive")) await naiveCase("inline", ours);
  if (CASES.has("naive-detached")) await naiveCase("detached", ours);
  if (CASES.has("old-defaults")) {
    // The same build with the old fixed limits (50 turns, 50 model calls): the baseline for the defaults.
    const old = await start(PORTS[0], env(undefined, "old"));
    try {
      await manyChats(`${CHATS} chats at once, SQLite, the old fixed limits (50 and 50)`, [old.base], [old.pid], 40_000);
    } finally {
      await old.stop();
    }
  }
  if (CASES.has("capacity")) await capacityCase();
  const postgres = CASES.has("postgres") ? await benchPostgres() : null;
  if (!postgres) {
    if (CASES.has("postgres")) console.error(POSTGRES_SKIPPED);
  } else {
    try {
      // BENCH_PG_INSTANCES=1 runs one instance instead (to tell the database's cost from the second process's).
      const instances = process.env.BENCH_PG_INSTANCES === "1" ? [PORTS[0]] : PORTS;
      const servers = [];
      for (const port of instances) servers.push(await start(port, env(postgres.url)));
      try {
        await manyChats(
          `${CHATS} chats at once, PostgreSQL, ${servers.length === 2 ? "two instances" : "one instance"}`,
          servers.map((s) => s.base),
          servers.map((s) => s.pid),
          30_000,
          undefined,
          postgres.query,
        );
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    } finally {
      await postgres.drop();
    }
  }
} finally {
  llm.close();
  telegram.close();
}
