import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/auth/operators";
import { openDb, type Database } from "@/lib/db/database";
import { blobStoreFor, sha256Of } from "@/lib/media/blob-store";
import { deleteConversationData } from "@/lib/pipeline/delete-conversation";
import { housekeeping } from "@/lib/server/housekeeping";
import { updateSettings } from "@/lib/settings/store";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, hasPostgres, postgresTestDb, sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeFiles, type FakeFiles } from "../helpers/fake-files";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

const MB = 1024 * 1024;
const LINE_TOKEN = "line-channel-token";
const API_TOKEN = "media-test-api-token-0123456789";
const ADMIN = { operator: { id: 1, name: "admin" }, role: "admin", via: "token" } as unknown as Caller;

/** Real images, made here: a 640×480 JPEG photo, a 320×200 PNG with transparency. */
const jpeg = (width = 640, height = 480, red = 200) =>
  sharp({ create: { width, height, channels: 3, background: { r: red, g: 80, b: 40 } } })
    .jpeg({ quality: 80 })
    .toBuffer();
const png = () =>
  sharp({ create: { width: 320, height: 200, channels: 4, background: { r: 0, g: 90, b: 200, alpha: 0.5 } } })
    .png()
    .toBuffer();
/** A real (minimal, valid) PDF: what a "photo" whose bytes are a document looks like. */
const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);

let seq = 0;

/** A message with one pending attachment, as the parser's ingest writes it. */
async function pendingAttachment(
  db: Database,
  o: {
    channel?: string;
    chatId?: string;
    source: string;
    sourceRef: string;
    kind?: string;
    sizeBytes?: number;
    mimeType?: string;
    sentAt?: Date;
  },
) {
  const channel = o.channel ?? (o.source === "line" ? "line" : "telegram");
  const chatId = o.chatId ?? "4242";
  const conversation = await db.prisma.conversation.upsert({
    where: { channel_platformChatId: { channel, platformChatId: chatId } },
    create: { channel, platformChatId: chatId, type: "private" },
    update: {},
  });
  const message = await db.prisma.message.create({
    data: {
      conversationId: conversation.id,
      direction: "inbound",
      senderKind: "user",
      senderName: "Alice",
      text: "",
      platformMessageId: String(++seq),
      sentAt: o.sentAt ?? new Date(),
    },
  });
  const attachment = await db.prisma.attachment.create({
    data: {
      messageId: message.id,
      kind: o.kind ?? "photo",
      source: o.source,
      sourceRef: o.sourceRef,
      status: "pending",
      ...(o.sizeBytes !== undefined ? { sizeBytes: o.sizeBytes } : {}),
      ...(o.mimeType ? { mimeType: o.mimeType } : {}),
    },
  });
  return { id: attachment.id, conversationId: conversation.id, messageId: message.id };
}

describe.each(databases)("media fetch on $name", ({ name, open }) => {
  let t: TestDb;
  let tg: FakeTelegram;
  let files: FakeFiles;
  let app: TestApp;

  /**
   * The app; a download's deadline is short, so the hanging server fails in two attempts.
   * `deadline`: the test ends each download's deadline itself (no race with the clock).
   */
  const startApp = (timeoutMs = 1_500, deadline?: (timeoutMs: number) => AbortSignal) =>
    startTestApp({
      db: t,
      telegram: tg,
      env: {
        LINE_CHANNEL_SECRET: "line-secret",
        LINE_CHANNEL_ACCESS_TOKEN: LINE_TOKEN,
        LINE_API_ROOT: files.url,
        LINE_DATA_API_ROOT: files.url,
        MEDIA_ALLOW_INSECURE_URLS: "true",
      },
      media: { timeoutMs, maxAttempts: 2, backoffMs: () => 30, deadline },
    });

  beforeEach(async () => {
    t = await open();
    tg = await startFakeTelegram();
    files = await startFakeFiles({ lineToken: LINE_TOKEN });
    app = await startApp();
  });
  afterEach(async () => {
    await app.stop();
    await tg.close();
    await files.close();
    await t.close();
  });

  const fetchAll = async () => {
    app.app.media.wake();
    await app.app.media.idle(2_000);
  };
  const row = (id: number) => t.db.prisma.attachment.findUniqueOrThrow({ where: { id } });

  it("stores a Telegram photo under its sniffed type and size, fetched with getFile and the bot's file URL", async () => {
    const bytes = await jpeg();
    tg.addFile("AgACAgIAAxkBAAIBphoto", { bytes, contentType: "application/octet-stream" });
    // The sender's declared type is a hint only: the stored type comes from the bytes.
    const { id } = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBphoto", mimeType: "image/png" });
    await fetchAll();
    const stored = await row(id);
    expect(stored).toMatchObject({
      status: "stored",
      mimeType: "image/jpeg",
      width: 640,
      height: 480,
      sizeBytes: bytes.byteLength,
      error: null,
    });
    expect(stored.blobSha256).toBe(sha256Of(bytes));
    const blob = await blobStoreFor(t.db).get(stored.blobSha256!);
    expect(blob && Buffer.compare(blob.bytes, bytes)).toBe(0);
    expect(tg.callsOf("getFile").map((c) => c.body.file_id)).toEqual(["AgACAgIAAxkBAAIBphoto"]);
    expect(tg.fileRequests).toEqual([{ token: "123456:TEST-TOKEN", path: "photos/file_1.jpg" }]);
  });

  it("a webhook for a photo is answered 200 while its download hangs; the job fetches after the acknowledgement", async (ctx) => {
    const bytes = await jpeg(1280, 960);
    tg.addFile("AgACAgIAAxkBAAIBwebhookBig", { bytes, delayMs: 60_000 });
    tg.addFile("AgACAgIAAxkBAAIBwebhookSmall", { bytes: await jpeg(90, 68) });
    const photo = {
      message_id: 700,
      date: Math.floor(Date.now() / 1000),
      chat: { id: 4242, type: "private", first_name: "Alice" },
      from: { id: 4242, is_bot: false, first_name: "Alice" },
      caption: "look at this",
      photo: [
        { file_id: "AgACAgIAAxkBAAIBwebhookSmall", file_unique_id: "AQADsmall", width: 90, height: 68, file_size: 1_200 },
        { file_id: "AgACAgIAAxkBAAIBwebhookBig", file_unique_id: "AQADbig", width: 1280, height: 960, file_size: bytes.byteLength },
      ],
    };
    const started = performance.now();
    const answer = await app.post({ update_id: 91_000, message: photo });
    const ackMs = performance.now() - started;
    expect(answer.status).toBe(200);
    const recorded = await t.db.prisma.attachment.findMany();
    // The parser that records attachments comes with the media parsing work; without it there is nothing to fetch here.
    if (recorded.length === 0) return ctx.skip();
    expect(ackMs).toBeLessThan(5_000); // the download holds 60 s: the answer did not wait for it
    expect(recorded.map((r) => r.status)).toEqual(["pending"]);
    // The fetch job was woken by the ingest: its download is under way (held by the slow server).
    await expect.poll(() => tg.fileStats("AgACAgIAAxkBAAIBwebhookBig").requests, { timeout: 5_000 }).toBe(1);
  });

  it("stores a LINE image from the content endpoint with the channel access token, waiting out a 202", async () => {
    const bytes = await png();
    files.lineContent("586012345678901234", { bytes, contentType: "image/png", firstStatuses: [202] });
    const { id } = await pendingAttachment(t.db, { source: "line", sourceRef: "586012345678901234" });
    await fetchAll();
    expect(await row(id)).toMatchObject({
      status: "stored",
      mimeType: "image/png",
      width: 320,
      height: 200,
      sizeBytes: bytes.byteLength,
      attempts: 2,
    });
    const stats = files.lineStats("586012345678901234");
    expect(stats.requests).toBe(2);
    expect(stats.headers.every((h) => h.authorization === `Bearer ${LINE_TOKEN}`)).toBe(true);
  });

  it("fetches an external provider's URL (LINE contentProvider external)", async () => {
    const bytes = await jpeg(300, 300);
    const url = files.serve("/cdn/photo.jpg", { bytes, contentType: "image/jpeg" });
    const { id } = await pendingAttachment(t.db, { channel: "line", source: "url", sourceRef: url });
    await fetchAll();
    expect(await row(id)).toMatchObject({ status: "stored", mimeType: "image/jpeg", width: 300, height: 300 });
  });

  it("a file host that quotes its URL in a refusal leaves no bot token in the stored reason", async () => {
    tg.addFile("BQACAgIAAxkBAAIBecho", { bytes: await jpeg(), echoUrl: true });
    const { id } = await pendingAttachment(t.db, { source: "telegram", kind: "document", sourceRef: "BQACAgIAAxkBAAIBecho" });
    await fetchAll();
    const failed = await row(id);
    expect(tg.fileRequests).toEqual([{ token: "123456:TEST-TOKEN", path: "photos/file_1.jpg" }]);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("Telegram answered HTTP 404: Not Found: /file/bot[redacted]/photos/file_1.jpg");
  });

  it("records a 30 MB file as too_large without downloading it when its size is declared", async () => {
    tg.addFile("BQACAgIAAxkBAAIBvideo", { bytes: Buffer.alloc(16) });
    const declared = await pendingAttachment(t.db, {
      source: "telegram",
      kind: "video",
      sourceRef: "BQACAgIAAxkBAAIBvideo",
      sizeBytes: 30 * MB,
    });
    // No size on the message, but getFile says 30 MB: still never downloaded.
    tg.addFile("BQACAgIAAxkBAAIBbig", { fileSize: 30 * MB, bytes: Buffer.alloc(16) });
    const byGetFile = await pendingAttachment(t.db, { source: "telegram", kind: "document", sourceRef: "BQACAgIAAxkBAAIBbig" });
    // Over the Bot API's own limit, getFile refuses: too_large as well, not an error.
    tg.addFile("BQACAgIAAxkBAAIBrefused", { tooBig: true });
    const refused = await pendingAttachment(t.db, { source: "telegram", kind: "document", sourceRef: "BQACAgIAAxkBAAIBrefused" });
    await fetchAll();
    expect(await row(declared.id)).toMatchObject({ status: "too_large", sizeBytes: 30 * MB, error: null, blobSha256: null });
    expect(await row(byGetFile.id)).toMatchObject({ status: "too_large", sizeBytes: 30 * MB });
    expect(await row(refused.id)).toMatchObject({ status: "too_large", error: null });
    expect(tg.callsOf("getFile").map((c) => c.body.file_id)).not.toContain("BQACAgIAAxkBAAIBvideo");
    expect(tg.fileStats("BQACAgIAAxkBAAIBvideo").requests).toBe(0);
    expect(tg.fileStats("BQACAgIAAxkBAAIBbig").requests).toBe(0);
  });

  it("stops reading at the limit when the server lies (no Content-Length, 30 MB of stream) or announces too much", async () => {
    // Reading 20 MB must not race the download's deadline (a loaded machine took over 1.5 s, and the
    // deadline rightly failed it): the production deadline, so only the limit can end these reads.
    await app.stop();
    app = await startApp(60_000);
    tg.addFile("BQACAgIAAxkBAAIBliar", { fileSize: null, streamBytes: 30 * MB });
    const liar = await pendingAttachment(t.db, { source: "telegram", kind: "document", sourceRef: "BQACAgIAAxkBAAIBliar" });
    files.lineContent("586099999999999999", { streamBytes: 30 * MB });
    const lineLiar = await pendingAttachment(t.db, { source: "line", kind: "video", sourceRef: "586099999999999999" });
    const announced = files.serve("/cdn/huge.bin", { bytes: Buffer.alloc(21 * MB) });
    const external = await pendingAttachment(t.db, { channel: "line", source: "url", kind: "document", sourceRef: announced });
    await fetchAll();
    for (const id of [liar.id, lineLiar.id]) {
      const r = await row(id);
      expect(r.status).toBe("too_large");
      expect(r.sizeBytes).toBeGreaterThan(20 * MB);
    }
    expect(await row(external.id)).toMatchObject({ status: "too_large", sizeBytes: 21 * MB });
    // The client hung up near the limit: the server never got to send the whole stream.
    expect(tg.fileStats("BQACAgIAAxkBAAIBliar").requests).toBe(1);
    expect(tg.fileStats("BQACAgIAAxkBAAIBliar").bytesSent).toBeLessThan(26 * MB);
    expect(files.lineStats("586099999999999999").bytesSent).toBeLessThan(26 * MB);
    expect(files.stats("/cdn/huge.bin").requests).toBe(1);
  }, 120_000);

  it("retries a download that hangs, then fails it with the reason, while other downloads go on", async () => {
    // Each download's deadline passes when the test says so, never by the wall clock: on a busy
    // machine the good photo's download and inspection could outlast a real 1.5 s deadline.
    const deadlines: AbortController[] = [];
    const timeUp = () => {
      for (const d of deadlines.splice(0)) d.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    };
    await app.stop();
    app = await startApp(60_000, () => {
      const deadline = new AbortController();
      deadlines.push(deadline);
      return deadline.signal;
    });
    tg.addFile("AgACAgIAAxkBAAIBhang", { hang: true });
    const hanging = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBhang" });
    const good = await jpeg(100, 80);
    tg.addFile("AgACAgIAAxkBAAIBgood", { bytes: good, delayMs: 50 });
    const other = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBgood" });
    app.app.media.wake();
    // The good photo is stored while the hanging one is still waiting for its bytes…
    await expect.poll(async () => (await row(other.id)).status, { timeout: 30_000, interval: 20 }).toBe("stored");
    await expect.poll(() => tg.fileStats("AgACAgIAAxkBAAIBhang").requests, { timeout: 30_000, interval: 20 }).toBe(1);
    // …in its first attempt: its deadline has not passed, so the good one did not wait for it.
    expect(await row(hanging.id)).toMatchObject({ status: "pending", attempts: 1, error: null });
    // The first attempt's deadline passes: retried after the backoff, its second deadline passes too.
    timeUp();
    await expect.poll(() => tg.fileStats("AgACAgIAAxkBAAIBhang").requests, { timeout: 30_000, interval: 20 }).toBe(2);
    await expect.poll(() => deadlines.length, { timeout: 30_000, interval: 20 }).toBe(1);
    timeUp();
    await expect.poll(async () => (await row(hanging.id)).status, { timeout: 30_000, interval: 20 }).toBe("failed");
    const failed = await row(hanging.id);
    expect(failed.error).toMatch(/timed out.*gave up after 2 attempts/);
    expect(failed.attempts).toBe(2);
    expect(tg.fileStats("AgACAgIAAxkBAAIBhang").requests).toBe(2);
  });

  it("fails a truncated image and a 'photo' whose bytes are a PDF, each with the reason", async () => {
    const whole = await jpeg(800, 600);
    tg.addFile("AgACAgIAAxkBAAIBcut", { bytes: whole.subarray(0, Math.floor(whole.byteLength / 2)) });
    const truncated = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBcut" });
    tg.addFile("AgACAgIAAxkBAAIBpdf", { bytes: PDF });
    const pdf = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBpdf" });
    await fetchAll();
    const cut = await row(truncated.id);
    expect(cut.status).toBe("failed");
    expect(cut.error).toMatch(/image cannot be read/);
    expect(await row(pdf.id)).toMatchObject({ status: "failed", error: "the bytes are application/pdf, not a photo", blobSha256: null });
    expect(await t.db.prisma.mediaBlob.count()).toBe(0);
  });

  it("keeps the same file sent twice as one blob", async () => {
    const bytes = await jpeg(200, 200, 10);
    tg.addFile("AgACAgIAAxkBAAIBsame1", { bytes });
    tg.addFile("AgACAgIAAxkBAAIBsame2", { bytes });
    const first = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBsame1" });
    const second = await pendingAttachment(t.db, { source: "telegram", chatId: "5151", sourceRef: "AgACAgIAAxkBAAIBsame2" });
    await fetchAll();
    const [a, b] = [await row(first.id), await row(second.id)];
    // Stored at once, both: two downloads of the same bytes side by side are no conflict.
    expect(a).toMatchObject({ status: "stored", attempts: 1 });
    expect(b).toMatchObject({ status: "stored", attempts: 1 });
    expect(b.blobSha256).toBe(a.blobSha256);
    expect(await t.db.prisma.mediaBlob.count()).toBe(1);
  });

  it("deleting a conversation's data removes its files, and keeps a file another conversation still uses", async () => {
    const own = await jpeg(120, 90, 10);
    const shared = await jpeg(120, 90, 250);
    tg.addFile("own", { bytes: own });
    tg.addFile("shared-a", { bytes: shared });
    tg.addFile("shared-b", { bytes: shared });
    const a = await pendingAttachment(t.db, { source: "telegram", chatId: "1001", sourceRef: "own" });
    await pendingAttachment(t.db, { source: "telegram", chatId: "1001", sourceRef: "shared-a" });
    await pendingAttachment(t.db, { source: "telegram", chatId: "2002", sourceRef: "shared-b" });
    await fetchAll();
    const store = blobStoreFor(t.db);
    expect(await t.db.prisma.mediaBlob.count()).toBe(2);
    const result = await deleteConversationData(t.db, ADMIN, a.conversationId);
    expect(result.removedFiles).toBe(1);
    expect(await t.db.prisma.conversation.count({ where: { id: a.conversationId } })).toBe(0);
    expect(await t.db.prisma.attachment.count()).toBe(1);
    expect(await store.get(sha256Of(own))).toBeNull();
    expect(await store.get(sha256Of(shared))).not.toBeNull();
    if (name === "sqlite") {
      const file = (sha: string) => join(dirname(t.db.sqliteFile!), "media", sha.slice(0, 2), sha);
      expect(existsSync(file(sha256Of(own)))).toBe(false);
      expect(existsSync(file(sha256Of(shared)))).toBe(true);
    }
    await expect(deleteConversationData(t.db, ADMIN, a.conversationId)).rejects.toMatchObject({ code: "not_found" });
  });

  it("DELETE /api/v1/conversations/{id}: 401 without credentials (nothing deleted), then the data and its files go", async () => {
    const bytes = await jpeg(90, 90, 120);
    tg.addFile("route-photo", { bytes });
    const { conversationId } = await pendingAttachment(t.db, { source: "telegram", chatId: "3003", sourceRef: "route-photo" });
    await fetchAll();
    installRouteApp(app.app, API_TOKEN);
    try {
      const { DELETE } = await import("@/app/api/v1/conversations/[id]/route");
      const call = (headers: Record<string, string>) =>
        DELETE(new Request(`http://localhost/api/v1/conversations/${conversationId}`, { method: "DELETE", headers }), {
          params: Promise.resolve({ id: String(conversationId) }),
        });
      expect((await call({})).status).toBe(401);
      expect(await t.db.prisma.conversation.count({ where: { id: conversationId } })).toBe(1);
      const done = await call({ authorization: `Bearer ${API_TOKEN}` });
      expect(done.status).toBe(200);
      expect(await done.json()).toEqual({ removedFiles: 1 });
      expect(await blobStoreFor(t.db).get(sha256Of(bytes))).toBeNull();
      expect((await call({ authorization: `Bearer ${API_TOKEN}` })).status).toBe(404);
    } finally {
      uninstallRouteApp();
    }
  });

  it("retention: files of messages older than mediaRetentionDays lose their bytes on the housekeeping tick", async () => {
    const old = await jpeg(64, 64, 10);
    const recent = await jpeg(64, 64, 250);
    tg.addFile("old", { bytes: old });
    tg.addFile("recent", { bytes: recent });
    const day = 24 * 60 * 60 * 1000;
    const oldOne = await pendingAttachment(t.db, { source: "telegram", sourceRef: "old", sentAt: new Date(Date.now() - 40 * day) });
    const newOne = await pendingAttachment(t.db, { source: "telegram", sourceRef: "recent", sentAt: new Date(Date.now() - 2 * day) });
    await fetchAll();
    // Default: keep.
    await housekeeping(app.app.turnDeps, 10_000, new Date());
    expect((await row(oldOne.id)).status).toBe("stored");
    await updateSettings(t.db, { mediaRetentionDays: 30 }, "admin");
    await housekeeping(app.app.turnDeps, 10_000, new Date(Date.now() + 61_000));
    const expired = await row(oldOne.id);
    expect(expired).toMatchObject({ status: "failed", blobSha256: null, error: "expired: files are kept 30 days (media retention)" });
    expect(await blobStoreFor(t.db).get(sha256Of(old))).toBeNull();
    expect(await row(newOne.id)).toMatchObject({ status: "stored", blobSha256: sha256Of(recent) });
    expect(await blobStoreFor(t.db).get(sha256Of(recent))).not.toBeNull();
  });
});

describe("media fetch without a platform to fetch from", () => {
  let t: TestDb;
  let app: TestApp;
  beforeEach(async () => {
    t = await sqliteTestDb();
  });
  afterEach(async () => {
    await app?.stop();
    await t.close();
  });

  it("the Telegram sandbox records files as unsupported, saying why; external URLs must be https", async () => {
    app = await startTestApp({ db: t });
    const tgFile = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBsandbox" });
    const lineFile = await pendingAttachment(t.db, { source: "line", sourceRef: "5860000" });
    const plain = await pendingAttachment(t.db, { channel: "line", source: "url", sourceRef: "http://example.com/a.jpg" });
    const local = await pendingAttachment(t.db, { channel: "line", source: "url", sourceRef: "https://127.0.0.1/a.jpg" });
    app.app.media.wake();
    await app.app.media.idle();
    const get = (id: number) => t.db.prisma.attachment.findUniqueOrThrow({ where: { id } });
    expect(await get(tgFile.id)).toMatchObject({ status: "unsupported", error: expect.stringMatching(/sandbox has no bot token/) });
    expect(await get(lineFile.id)).toMatchObject({ status: "unsupported", error: expect.stringMatching(/LINE adapter is off/) });
    expect(await get(plain.id)).toMatchObject({ status: "failed", error: expect.stringMatching(/only https URLs/) });
    expect(await get(local.id)).toMatchObject({ status: "failed", error: expect.stringMatching(/private address/) });
  });

  it("the sandbox fetches from TELEGRAM_API_ROOT when one is configured", async () => {
    const tg = await startFakeTelegram();
    try {
      app = await startTestApp({ db: t, env: { TELEGRAM_API_ROOT: tg.url } });
      const bytes = await jpeg(50, 40);
      tg.addFile("AgACAgIAAxkBAAIBdemo", { bytes });
      const { id } = await pendingAttachment(t.db, { source: "telegram", sourceRef: "AgACAgIAAxkBAAIBdemo" });
      app.app.media.wake();
      await app.app.media.idle();
      expect(await t.db.prisma.attachment.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "stored", width: 50, height: 40 });
    } finally {
      await tg.close();
    }
  });
});

describe.skipIf(!hasPostgres)("media fetch with two PostgreSQL instances", () => {
  let t: TestDb;
  let second: Database;
  let tg: FakeTelegram;
  let apps: TestApp[] = [];

  beforeEach(async () => {
    t = await postgresTestDb();
    second = await openDb(t.url);
    tg = await startFakeTelegram();
  });
  afterEach(async () => {
    for (const app of apps) await app.stop();
    apps = [];
    await second.close();
    await tg.close();
    await t.close();
  });

  it("never downloads one file twice, and each instance serves what the other stored", async () => {
    // Two app instances on one schema, each with its own database handle (pools, claims), as two servers.
    apps = [
      await startTestApp({ db: t, telegram: tg, media: { timeoutMs: 5_000 } }),
      await startTestApp({ db: { ...t, db: second }, telegram: tg, media: { timeoutMs: 5_000 } }),
    ];
    const photos: { id: number; bytes: Buffer; fileId: string }[] = [];
    for (let i = 0; i < 16; i++) {
      const bytes = await jpeg(40 + i, 30, i * 15);
      const fileId = `AgACAgIAAxkBAAIBpg${i}`;
      // A little slow, so both instances are claiming while the other downloads.
      tg.addFile(fileId, { bytes, delayMs: 40 });
      const { id } = await pendingAttachment(t.db, { source: "telegram", chatId: String(7000 + i), sourceRef: fileId });
      photos.push({ id, bytes, fileId });
    }
    for (const app of apps) app.app.media.wake();
    for (const app of apps) app.app.media.wake();
    await Promise.all(apps.map((app) => app.app.media.idle(2_000)));
    for (const photo of photos) {
      expect(tg.fileStats(photo.fileId).requests).toBe(1);
      const stored = await t.db.prisma.attachment.findUniqueOrThrow({ where: { id: photo.id } });
      expect(stored).toMatchObject({ status: "stored", attempts: 1 });
      // Whichever instance stored it, both read the same bytes (in PostgreSQL, no shared disk).
      for (const db of [t.db, second]) {
        const blob = await blobStoreFor(db).get(stored.blobSha256!);
        expect(blob && Buffer.compare(blob.bytes, photo.bytes)).toBe(0);
      }
    }
    expect(tg.callsOf("getFile")).toHaveLength(16);
  });
});
