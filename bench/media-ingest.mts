// Media ingest: webhook acknowledge latency (p50/p99) for photo updates against text
// updates in the same run, and how long a photo takes from its webhook to its bytes
// stored (the fetch job: getFile, the download, inspection, the blob store).
//
// The app is wired as the server wires it (lib/server/wiring.ts createApp) on a fresh
// SQLite file, behind a bare node:http server, with a live Telegram adapter talking
// to a Bot API fake on loopback that answers getFile and serves real JPEG bytes
// (about 100 KB, 1280×960, as a phone's photo after Telegram's compression).
// Text and photo rounds alternate at the same fixed rate (open loop); each round's
// ratio is taken (paired) and the median over rounds reported, so drift hits both.
// Photo rounds include the fetch job downloading in the background: that is the
// point, downloads must stay off the acknowledgement path.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import sharp from "sharp";
import { openDb } from "../lib/db/database";
import { migrate } from "../lib/db/migrations.mjs";
import { parseEnv } from "../lib/env";
import { createApp } from "../lib/server/wiring";
import { updateSettings } from "../lib/settings/store";
import { body as readBody, listen } from "./loopback.ts";
import { openLoop } from "./open-loop.ts";
import { report, summarize } from "./stats.ts";
import { receiveWebhook } from "../lib/inbound/receive-webhook";

const RATE = Number(process.env.BENCH_RATE ?? 60);
/** Photos per second arriving for the fetch latency (well under what 4 downloads at once serve, so it is each photo's time, not a queue's). */
const FETCH_RATE = 10;
const FETCH_PHOTOS = 100;
const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECRET = "bench-secret";
const TOKEN = "123456:BENCH-TOKEN";

const photo = await sharp({ create: { width: 1280, height: 960, channels: 3, noise: { type: "gaussian", mean: 128, sigma: 12 } } })
  .jpeg({ quality: 60 })
  .toBuffer();

// The Bot API fake: getMe, getFile (any file_id is this photo), the file route, and `true` for the rest.
const botApi = await listen(async (req, res) => {
  if (req.url?.startsWith("/file/")) {
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": String(photo.byteLength) });
    return res.end(photo);
  }
  const method = req.url!.split("/").pop();
  const payload = await readBody(req);
  res.setHeader("content-type", "application/json");
  if (method === "getMe")
    return res.end(JSON.stringify({ ok: true, result: { id: 777000, is_bot: true, first_name: "Bench", username: "bench_bot" } }));
  if (method === "getFile")
    return res.end(
      JSON.stringify({
        ok: true,
        result: {
          file_id: payload.file_id,
          file_unique_id: `u${payload.file_id}`,
          file_size: photo.byteLength,
          file_path: `photos/${payload.file_id}.jpg`,
        },
      }),
    );
  if (method === "sendMessage")
    return res.end(
      JSON.stringify({
        ok: true,
        result: {
          message_id: Math.floor(Math.random() * 1e9),
          date: Math.floor(Date.now() / 1000),
          chat: { id: payload.chat_id, type: "private" },
          text: payload.text,
        },
      }),
    );
  res.end(JSON.stringify({ ok: true, result: true }));
});

const dir = mkdtempSync(join(tmpdir(), "switchboard-bench-media-"));
const url = `file:${join(dir, "bench.db")}`;
await migrate(url);
const db = await openDb(url);
const env = parseEnv({
  NODE_ENV: "production",
  DATABASE_URL: url,
  TELEGRAM_BOT_TOKEN: TOKEN,
  TELEGRAM_WEBHOOK_SECRET: SECRET,
  TELEGRAM_API_ROOT: botApi.url,
  LOG_LEVEL: "error",
  METRICS_ENABLED: "false",
});
const app = await createApp(env, db, { model: null });
await app.telegram.identity();

// The webhook behind a bare HTTP server, as scripts/start.mjs serves Next's handler.
const hook = await listen(async (req, res) => {
  const text = JSON.stringify(await readBody(req));
  const response = await receiveWebhook(
    app.inbound,
    "telegram",
    new Request("http://localhost/api/webhooks/telegram", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-telegram-bot-api-secret-token": String(req.headers["x-telegram-bot-api-secret-token"]),
      },
      body: text,
    }),
  );
  res.writeHead(response.status, { "content-type": "application/json" });
  res.end(await response.text());
});

let updateId = 1;
const from = (chat: number) => ({ id: chat, is_bot: false, first_name: "Load" });
const textUpdate = () => {
  const id = updateId++;
  const chat = 1000 + (id % 50);
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: "private", first_name: "Load" },
      from: from(chat),
      text: `message ${id}`,
    },
  });
};
/** A photo as the Bot API sends it: the sizes Telegram made, largest last, and a caption. */
const photoUpdate = () => {
  const id = updateId++;
  const chat = 1000 + (id % 50);
  const sizes = [
    [90, 68, 1_200],
    [320, 240, 15_000],
    [800, 600, 60_000],
    [1280, 960, photo.byteLength],
  ].map(([width, height, size], i) => ({
    file_id: `AgACAgIAAxkBAAI${id}x${i}`,
    file_unique_id: `AQAD${id}x${i}`,
    width,
    height,
    file_size: size,
  }));
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: "private", first_name: "Load" },
      from: from(chat),
      photo: sizes,
      caption: `photo ${id}`,
    },
  });
};
const headers = { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET, "accept-encoding": "gzip, deflate" };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const paired = (values: number[], baselines: number[]) =>
  Math.round(median(values.map((v, i) => v / Math.max(baselines[i], 0.001))) * 100) / 100;

try {
  // Warm-up: JIT, prepared statements, sharp.
  await openLoop({ url: hook.url, rate: RATE, durationS: 1, headers, body: textUpdate });
  await openLoop({ url: hook.url, rate: RATE, durationS: 1, headers, body: photoUpdate });
  await app.media.idle(1_000);
  const text: { p50: number; p99: number }[] = [];
  const photos: { p50: number; p99: number }[] = [];
  let failed = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const t = await openLoop({ url: hook.url, rate: RATE, durationS: DURATION, headers, body: textUpdate });
    const p = await openLoop({ url: hook.url, rate: RATE, durationS: DURATION, headers, body: photoUpdate });
    text.push(t);
    photos.push(p);
    failed += t.failed + p.failed;
  }
  const list = (runs: { p99: number }[]) => runs.map((r) => r.p99).join(", ");
  const p50 = paired(
    photos.map((r) => r.p50),
    text.map((r) => r.p50),
  );
  const p99 = paired(
    photos.map((r) => r.p99),
    text.map((r) => r.p99),
  );
  const parsed = await db.prisma.attachment.count();
  const note = parsed
    ? `${parsed} attachments stored by ingest`
    : "this build's parser records no attachments yet (photo updates store their caption only): the ratio is for the webhook path alone";
  report({
    bench: "media-ingest",
    case: `photo vs text updates, SQLite, fixed rate ${RATE}/s, ${ROUNDS} × ${DURATION} s each`,
    metric: "p50 ack latency (median)",
    value: median(photos.map((r) => r.p50)),
    unit: "ms",
    baseline: median(text.map((r) => r.p50)),
    ratio: p50,
    target: "≤ 1.25× text updates",
    met: p50 <= 1.25,
  });
  report({
    bench: "media-ingest",
    case: `photo vs text updates, SQLite, fixed rate ${RATE}/s, ${ROUNDS} × ${DURATION} s each`,
    metric: "p99 ack latency (median)",
    value: median(photos.map((r) => r.p99)),
    unit: "ms",
    baseline: median(text.map((r) => r.p99)),
    ratio: p99,
    target: "≤ 1.25× text updates",
    met: p99 <= 1.25,
    note: `open loop; rounds p99: photo ${list(photos)} / text ${list(text)} ms; failed requests: ${failed}; ${note}`,
  });

  // Fetch latency: from the attachment's record (the webhook's transaction) to its bytes stored,
  // photos arriving at a steady rate. Without attachments from the parser, rows are recorded
  // directly, one by one, and the job woken as ingest wakes it.
  await app.media.idle(5_000);
  const since = new Date();
  const conversation = await db.prisma.conversation.findFirstOrThrow();
  for (let i = 0; i < FETCH_PHOTOS; i++) {
    if (parsed) {
      await fetch(hook.url, { method: "POST", headers, body: photoUpdate() });
    } else {
      const message = await db.prisma.message.create({
        data: { conversationId: conversation.id, direction: "inbound", senderKind: "user", text: "", sentAt: new Date() },
      });
      await db.prisma.attachment.create({
        data: { messageId: message.id, kind: "photo", source: "telegram", sourceRef: `direct${i}`, sizeBytes: photo.byteLength },
      });
      app.media.wake();
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 / FETCH_RATE));
  }
  for (let waited = 0; waited < 30_000 && (await db.prisma.attachment.count({ where: { status: "pending" } })) > 0; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const rows = await db.prisma.attachment.findMany({
    where: { status: "stored", createdAt: { gte: since } },
    select: { createdAt: true, updatedAt: true },
  });
  const waits = summarize(rows.map((r) => r.updatedAt.getTime() - r.createdAt.getTime()));
  const notStored = await db.prisma.attachment.count({ where: { status: { not: "stored" } } });
  report({
    bench: "media-ingest",
    case: `photo fetch (getFile + ${Math.round(photo.byteLength / 1024)} KB download + inspect + store), loopback Bot API`,
    metric: "record → stored p50",
    value: waits.p50,
    unit: "ms",
    note: `p99 ${waits.p99} ms, max ${waits.max} ms over ${waits.n} photos arriving ${FETCH_RATE}/s (4 downloads at once); not stored: ${notStored}${parsed ? "" : "; rows recorded directly, the job woken for each, as ingest does"}`,
  });
} finally {
  await app.media.stop();
  await app.worker.stop();
  hook.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

// From a photo's webhook to its image in the model's request: the whole path (ingest, the
// fetch job, the turn's short wait for its picture, re-encoding), against a text update's
// webhook to its model request in the same run. A model that sees images (provider
// "anthropic", answering at once) records when each request came and whether it held an image.
{
  const dir2 = mkdtempSync(join(tmpdir(), "switchboard-bench-media-model-"));
  const url2 = `file:${join(dir2, "bench.db")}`;
  await migrate(url2);
  const db2 = await openDb(url2);
  const seen = new Map<string, { at: number; image: boolean }>();
  const mock = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const prompt = JSON.stringify(options.prompt);
      const tag = /(?:photo|message) (\d+)(?![\d×])/.exec(prompt.slice(prompt.lastIndexOf('"role":"user"')))?.[0];
      if (tag && !seen.has(tag)) seen.set(tag, { at: performance.now(), image: prompt.includes('"type":"file"') });
      return {
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "reply", input: JSON.stringify({ message: "ok" }) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } },
        warnings: [],
      };
    },
  });
  const env2 = parseEnv({
    NODE_ENV: "production",
    DATABASE_URL: url2,
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: botApi.url,
    LOG_LEVEL: "error",
    METRICS_ENABLED: "false",
  });
  const app2 = await createApp(env2, db2, { model: { model: mock, provider: "anthropic", modelId: "bench-vision" } });
  await app2.telegram.identity();
  // Whole answers (no drafts streamed, no typing indicator): the time to the request is what is measured.
  await updateSettings(db2, { streamDrafts: false, typingIndicator: false }, "bench");
  const post = async (body: string) =>
    receiveWebhook(app2.inbound, "telegram", new Request("http://localhost/api/webhooks/telegram", { method: "POST", headers, body }));
  const sentAt = new Map<string, number>();
  const CHATS = 40;
  for (let i = 0; i < CHATS; i++) {
    // Alternating, each in a chat of its own, two a second: one model call per update.
    const body = i % 2 === 0 ? photoUpdate() : textUpdate();
    const parsed = JSON.parse(body) as { update_id: number; message: Record<string, unknown> };
    parsed.message.chat = { id: 50_000 + i, type: "private", first_name: "Load" };
    parsed.message.from = from(50_000 + i);
    const tag = i % 2 === 0 ? `photo ${parsed.update_id}` : `message ${parsed.update_id}`;
    sentAt.set(tag, performance.now());
    await post(JSON.stringify(parsed));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  for (let waited = 0; waited < 30_000 && seen.size < CHATS; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  const times = (kind: string) =>
    [...sentAt].filter(([tag]) => tag.startsWith(kind) && seen.has(tag)).map(([tag, at]) => seen.get(tag)!.at - at);
  const photoTimes = summarize(times("photo"));
  const textTimes = summarize(times("message"));
  const withImage = [...seen].filter(([tag, s]) => tag.startsWith("photo") && s.image).length;
  report({
    bench: "media-ingest",
    case: `photo webhook → its image in the model's request (vs text webhook → model request), SQLite, burst debounce ${env2.BURST_DEBOUNCE_MS} ms`,
    metric: "p50",
    value: photoTimes.p50,
    unit: "ms",
    baseline: textTimes.p50,
    ratio: Math.round((photoTimes.p50 / Math.max(textTimes.p50, 0.001)) * 100) / 100,
    note: `p99 photo ${photoTimes.p99} ms / text ${textTimes.p99} ms; ${withImage} of ${photoTimes.n} photo requests held the image; ${CHATS} updates, 2/s, alternating`,
  });
  await app2.media.stop();
  await app2.worker.stop();
  await db2.close();
  rmSync(dir2, { recursive: true, force: true });
}
botApi.close();
process.exit(0);
