import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CSRF_HEADER, SESSION_COOKIE } from "@/lib/auth/operators";
import { createSession } from "@/lib/db/operators";
import { UploadSlots } from "@/lib/http/upload-slots";
import { log } from "@/lib/log";
import { blobStoreFor, READ_CHUNK_BYTES } from "@/lib/media/blob-store";
import { signedMediaUrl } from "@/lib/media/signed-url";
import { processHolder } from "@/lib/server/wiring";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

const TOKEN = "test-api-token-0123456789";
const PUBLIC_URL = "https://switchboard.example";
type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;

/** Real bytes: a JPEG and a PNG from sharp's encoders, a tiny valid PDF, an SVG with a script, an HTML page, an Opus voice note. */
const jpeg = () =>
  sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .jpeg()
    .toBuffer();
const png = () =>
  sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 120, b: 255, alpha: 0.5 } } })
    .png()
    .toBuffer();
const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>');
const HTML = Buffer.from("<!doctype html><html><body><script>fetch('/api/v1/settings')</script></body></html>");
const VOICE = readFileSync(resolve("tests/fixtures/media/voice.ogg"));
const M4A = readFileSync(resolve("tests/fixtures/media/audio.m4a"));

/** A LINE Messaging API push endpoint on loopback, recording what was pushed. */
async function startFakeLine() {
  const pushes: Record<string, any>[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    if (req.url === "/v2/bot/message/push") pushes.push(body);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ sentMessages: [{ id: String(800_000 + pushes.length), quoteToken: "q" }] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pushes,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.each(databases)("operators see and send media on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let line: Awaited<ReturnType<typeof startFakeLine>>;
  let testDb: TestDb;
  let t: TestApp;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    line = await startFakeLine();
  });
  afterAll(async () => {
    await telegram.close();
    await line.close();
  });
  beforeEach(async () => {
    telegram.calls.length = 0;
    line.pushes.length = 0;
    testDb = await open();
    t = await startTestApp({
      db: testDb,
      telegram,
      model: null,
      env: {
        SWITCHBOARD_API_TOKEN: TOKEN,
        LINE_CHANNEL_SECRET: "line-secret",
        LINE_CHANNEL_ACCESS_TOKEN: "line-token",
        LINE_API_ROOT: line.url,
        PUBLIC_URL,
        MEDIA_URL_SECRET: "a-media-url-secret-of-at-least-32-chars",
        MEDIA_MAX_BYTES: String(2 * 1024 * 1024),
      },
    });
    installRouteApp(t.app, TOKEN);
  });
  afterEach(async () => {
    uninstallRouteApp();
    await t.settle();
    await t.stop();
    await testDb.close();
  });

  const bearer = { authorization: `Bearer ${TOKEN}` };

  async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}) {
    const folder = path.split("?")[0]!.replace(/\/\d+(?=\/|$)/, "/[id]");
    const route = (await import(resolve("app/api/v1", `.${folder}`, "route.ts"))) as Route;
    const id = /\/(\d+)(?=\/|$|\?)/.exec(path)?.[1];
    // duplex: a body may be a stream (a client still sending).
    const request = new Request(`http://localhost/api/v1${path}`, {
      method,
      headers: init.headers ?? bearer,
      body: init.body,
      duplex: "half",
    } as RequestInit);
    return route[method]!(request, { params: Promise.resolve(id ? { id } : {}) });
  }

  /** GET /api/media/{sha256}?… — the signed route, outside the session check. */
  async function signed(url: string) {
    const route = (await import(resolve("app/api/media/[key]/route.ts"))) as Route;
    const key = new URL(url).pathname.split("/").pop()!;
    return route.GET!(new Request(url.replace(PUBLIC_URL, "http://localhost")), { params: Promise.resolve({ key }) });
  }

  /** A multipart upload as a browser sends it (FormData: the file part with its name and type). */
  function upload(
    conversationId: number,
    file: { bytes: Uint8Array; name: string; type?: string },
    fields: Record<string, string> = {},
    headers = bearer,
  ) {
    const form = new FormData();
    form.set("file", new File([new Uint8Array(file.bytes)], file.name, { type: file.type ?? "" }));
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return call("POST", `/conversations/${conversationId}/media`, { headers, body: form });
  }

  /**
   * An upload whose client has sent the form's start and then waits: `cut` ends it as
   * a client that goes away does (the body stream errors, as Node's "aborted").
   */
  function slowUpload(conversationId: number, headers: Record<string, string> = {}) {
    const boundary = "slow-upload-boundary";
    let pulled = 0;
    let cut!: () => void;
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          cut = () => controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
        },
        pull(controller) {
          if (pulled++ === 0)
            controller.enqueue(
              new TextEncoder().encode(
                `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.pdf"\r\ncontent-type: application/pdf\r\n\r\n%PDF-1.4\n`,
              ),
            );
        },
      },
      { highWaterMark: 0 },
    );
    const response = call("POST", `/conversations/${conversationId}/media`, {
      headers: { ...bearer, "content-type": `multipart/form-data; boundary=${boundary}`, ...headers },
      body,
    });
    return { response, cut, pulled: () => pulled };
  }

  async function telegramConversation() {
    await t.post(update({ text: "hello, here is my question" }));
    await t.settle();
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { channel: "telegram" } });
    const message = await t.db.prisma.message.findFirstOrThrow({ where: { conversationId: conversation.id } });
    return { conversationId: conversation.id, message };
  }

  /** An inbound message carrying a stored file, as the fetch job leaves it. */
  async function storedAttachment(bytes: Buffer, o: { kind: string; fileName?: string; sniffed?: string }) {
    const { message } = await telegramConversation();
    const mimeType = o.kind === "photo" ? "image/jpeg" : "application/octet-stream";
    const { sha256 } = await blobStoreFor(t.db).put(bytes, o.sniffed ?? mimeType);
    return t.db.prisma.attachment.create({
      data: {
        messageId: message.id,
        kind: o.kind,
        status: "stored",
        source: "telegram",
        sourceRef: "file-id",
        blobSha256: sha256,
        fileName: o.fileName ?? null,
        mimeType,
      },
    });
  }

  const nothingStored = async (before: { messages: number; blobs: number; envelopes: number }) => {
    expect(await t.db.prisma.message.count()).toBe(before.messages);
    expect(await t.db.prisma.mediaBlob.count()).toBe(before.blobs);
    expect(await t.db.prisma.envelope.count()).toBe(before.envelopes);
    expect(await t.db.prisma.attachment.count()).toBe(0);
    expect(telegram.mediaSends()).toHaveLength(0);
  };
  const counts = async () => ({
    messages: await t.db.prisma.message.count(),
    blobs: await t.db.prisma.mediaBlob.count(),
    envelopes: await t.db.prisma.envelope.count(),
  });

  it("GET /media/{id}: 401 without a session or token; a JPEG inline as image/jpeg with nosniff; a thumb is a small image; 304 on its ETag", async () => {
    const bytes = await jpeg();
    const attachment = await storedAttachment(bytes, { kind: "photo" });
    expect((await call("GET", `/media/${attachment.id}`, { headers: {} })).status).toBe(401);
    expect((await call("GET", `/media/${attachment.id}`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(
      401,
    );

    const response = await call("GET", `/media/${attachment.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-disposition")).toMatch(/^inline/);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);

    const thumb = await call("GET", `/media/${attachment.id}?size=thumb`);
    expect(thumb.status).toBe(200);
    const small = Buffer.from(await thumb.arrayBuffer());
    const meta = await sharp(small).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(320);
    expect(small.length).toBeLessThan(bytes.length);

    const etag = response.headers.get("etag")!;
    expect((await call("GET", `/media/${attachment.id}`, { headers: { ...bearer, "if-none-match": etag } })).status).toBe(304);
    expect((await call("GET", "/media/999999")).status).toBe(404);
  });

  it("an SVG and an HTML document are served as attachments with a neutral type, never inline, named or nameless", async () => {
    for (const [bytes, fileName, sniffed] of [
      [SVG, "drawing.svg", "image/svg+xml"],
      [HTML, "page.html", "text/html"],
      // Sent without a name (a document with no file_name): still a download.
      [SVG, undefined, "image/svg+xml"],
      [HTML, undefined, "text/html"],
    ] as const) {
      const attachment = await storedAttachment(bytes, { kind: "document", fileName, sniffed });
      const response = await call("GET", `/media/${attachment.id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-disposition")).toBe(
        fileName ? `attachment; filename="${fileName}"; filename*=UTF-8''${fileName}` : "attachment",
      );
      expect(response.headers.get("content-type")).toBe("application/octet-stream");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
      // Not an image: no thumbnail.
      expect((await call("GET", `/media/${attachment.id}?size=thumb`)).status).toBe(404);
    }
  });

  // A longer time limit: storing 9 MB through Prisma on PostgreSQL takes seconds on a loaded machine.
  it("a download holds one chunk of the file, not the file: 20 at once of a 9 MB PNG, each having read its first chunk, and the same through a signed link", async () => {
    // A real PNG of noise (it does not compress): 2,000 × 1,500 pixels, about 9 MB.
    const big = await sharp({
      create: { width: 2000, height: 1500, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.byteLength).toBeGreaterThan(8 * 1024 * 1024);
    const attachment = await storedAttachment(big, { kind: "document", fileName: "noise.png", sniffed: "image/png" });

    // Read whole, it is the same file.
    const whole = await call("GET", `/media/${attachment.id}`);
    expect(whole.headers.get("content-length")).toBe(String(big.byteLength));
    expect(Buffer.from(await whole.arrayBuffer()).equals(big)).toBe(true);

    const before = process.memoryUsage().arrayBuffers;
    const readers = await Promise.all(
      Array.from({ length: 20 }, async () => (await call("GET", `/media/${attachment.id}`)).body!.getReader()),
    );
    const first = await Promise.all(readers.map((reader) => reader.read()));
    const held = process.memoryUsage().arrayBuffers - before;
    for (const { value } of first) expect(value!.byteLength).toBeLessThanOrEqual(READ_CHUNK_BYTES);
    // Twenty whole files would be 180 MB; twenty chunks are 5 MB (the rest is the test's own garbage).
    expect(held).toBeLessThan(60 * 1024 * 1024);
    await Promise.all(readers.map((reader) => reader.cancel()));

    // What LINE fetches, without a session: read in chunks too.
    const link = signedMediaUrl(PUBLIC_URL, "a-media-url-secret-of-at-least-32-chars", attachment.blobSha256!, "original");
    const reader = (await signed(link)).body!.getReader();
    expect((await reader.read()).value!.byteLength).toBeLessThanOrEqual(READ_CHUNK_BYTES);
    await reader.cancel();
  }, 120_000);

  it("a pending attachment has no bytes yet (404), and every message view lists attachments with their url only once stored", async () => {
    const stored = await storedAttachment(await jpeg(), { kind: "photo" });
    const pending = await t.db.prisma.attachment.create({
      data: {
        messageId: stored.messageId,
        position: 1,
        kind: "voice",
        status: "pending",
        source: "telegram",
        sourceRef: "f2",
        durationSeconds: 7,
      },
    });
    expect((await call("GET", `/media/${pending.id}`)).status).toBe(404);
    const timeline = await (await call("GET", `/conversations/${(await t.db.prisma.conversation.findFirstOrThrow()).id}/messages`)).json();
    const message = timeline.messages.find((m: { id: number }) => m.id === stored.messageId);
    expect(message.attachments).toEqual([
      expect.objectContaining({ id: stored.id, kind: "photo", status: "stored", url: `/api/v1/media/${stored.id}` }),
      expect.objectContaining({ id: pending.id, kind: "voice", status: "pending", url: null, durationSeconds: 7 }),
    ]);
    const thread = await (await call("GET", `/messages/${stored.messageId}/thread`)).json();
    expect(thread.members[0].attachments).toHaveLength(2);
  });

  it("an operator's PNG goes out as sendPhoto exactly once, stored as the message's attachment; threaded with reply_parameters", async () => {
    const { conversationId, message } = await telegramConversation();
    const bytes = await png();
    const response = await upload(conversationId, { bytes, name: "chart.png", type: "image/png" }, { caption: "the chart you asked for" });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({ ok: true, recorded: true, envelopeId: expect.any(Number), messageId: expect.any(Number) });
    const sends = telegram.mediaSends();
    expect(sends.map((c) => c.method)).toEqual(["sendPhoto"]);
    expect(sends[0]!.body.caption).toBe("the chart you asked for");
    expect(sends[0]!.body.reply_parameters).toBeUndefined();
    expect(Buffer.from(Object.values(sends[0]!.files!)[0]!.bytes).equals(bytes)).toBe(true);
    expect(telegram.sends()).toHaveLength(0);

    const [attachment] = await t.db.prisma.attachment.findMany({ where: { messageId: body.messageId } });
    expect(attachment).toMatchObject({
      kind: "photo",
      status: "stored",
      source: "upload",
      mimeType: "image/png",
      fileName: "chart.png",
      width: 64,
      height: 48,
    });
    const served = await call("GET", `/media/${attachment!.id}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    const envelope = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: body.envelopeId } });
    expect(envelope).toMatchObject({ status: "done", from: "operator:api", messageId: body.messageId });

    // The envelope is done: the worker never sends it again, and Retry refuses a file's envelope.
    await t.settle();
    expect(telegram.mediaSends()).toHaveLength(1);

    const reply = await upload(conversationId, { bytes, name: "again.png" }, { replyToMessageId: String(message.id) });
    expect(reply.status).toBe(201);
    const threaded = telegram.mediaSends()[1]!;
    expect(threaded.body.reply_parameters).toMatchObject({ message_id: Number(message.platformMessageId) });
    const replied = await t.db.prisma.message.findUniqueOrThrow({ where: { id: (await reply.json()).messageId } });
    expect(replied.replyToMessageId).toBe(message.id);
    // Same bytes: one blob.
    expect(await t.db.prisma.mediaBlob.count()).toBe(1);
  });

  it("a PDF goes as sendDocument, an Opus voice note as sendVoice", async () => {
    const { conversationId } = await telegramConversation();
    expect((await upload(conversationId, { bytes: PDF, name: "report.pdf", type: "application/pdf" })).status).toBe(201);
    expect((await upload(conversationId, { bytes: VOICE, name: "note.ogg", type: "audio/ogg" })).status).toBe(201);
    expect(telegram.mediaSends().map((c) => [c.method, Object.values(c.files!)[0]!.name])).toEqual([
      ["sendDocument", "report.pdf"],
      ["sendVoice", "note.ogg"],
    ]);
    const kinds = (await t.db.prisma.attachment.findMany({ orderBy: { id: "asc" } })).map((a) => [a.kind, a.mimeType]);
    expect(kinds).toEqual([
      ["document", "application/pdf"],
      ["voice", "audio/ogg; codecs=opus"],
    ]);
  });

  it("a file name's bidirectional controls are dropped: stored, sent, listed and served without them", async () => {
    const { conversationId } = await telegramConversation();
    // U+202E shows what follows right to left: "invoice\u202Efdp.exe" reads "invoiceexe.pdf".
    const response = await upload(conversationId, { bytes: PDF, name: "invoice\u202Efdp.exe", type: "application/pdf" });
    expect(response.status).toBe(201);
    const { messageId } = await response.json();
    const [attachment] = await t.db.prisma.attachment.findMany({ where: { messageId } });
    expect(attachment!.fileName).toBe("invoicefdp.exe");
    expect(Object.values(telegram.mediaSends()[0]!.files!)[0]!.name).toBe("invoicefdp.exe");
    const served = await call("GET", `/media/${attachment!.id}`);
    expect(served.headers.get("content-disposition")).toBe(`attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`);

    // A name stored before the controls were dropped is served and listed without them.
    const old = await storedAttachment(PDF, { kind: "document", fileName: "\u2066report\u2069\u202Egpj.scr" });
    expect((await call("GET", `/media/${old.id}`)).headers.get("content-disposition")).toBe(
      `attachment; filename="reportgpj.scr"; filename*=UTF-8''reportgpj.scr`,
    );
    const timeline = await (await call("GET", `/conversations/${conversationId}/messages`)).json();
    const listed = timeline.messages.flatMap((m: { attachments: { id: number; fileName: string | null }[] }) => m.attachments);
    expect(listed.find((a: { id: number }) => a.id === old.id).fileName).toBe("reportgpj.scr");
  });

  it("a name stored before intake cleaning is listed and served without invisible characters (zero-width, C1 controls, U+2028)", async () => {
    const { conversationId } = await telegramConversation();
    const old = await storedAttachment(PDF, { kind: "document", fileName: "re\u200Bpo\u0085rt\u2028.pdf" });
    const blank = await storedAttachment(PDF, { kind: "document", fileName: "\u200B\u009B\u2029" });
    expect((await call("GET", `/media/${old.id}`)).headers.get("content-disposition")).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect((await call("GET", `/media/${blank.id}`)).headers.get("content-disposition")).toBe("attachment");
    const timeline = await (await call("GET", `/conversations/${conversationId}/messages`)).json();
    const listed = timeline.messages.flatMap((m: { attachments: { id: number; fileName: string | null }[] }) => m.attachments);
    expect(listed.find((a: { id: number }) => a.id === old.id).fileName).toBe("report.pdf");
    // Nothing left of the name: listed without one, as intake stores it.
    expect(listed.find((a: { id: number }) => a.id === blank.id).fileName).toBeNull();
  });

  it("an empty file, one over MEDIA_MAX_BYTES, and a .jpg of garbage are 4xx that store and send nothing", async () => {
    const { conversationId } = await telegramConversation();
    const before = await counts();
    const empty = await upload(conversationId, { bytes: new Uint8Array(0), name: "empty.jpg" });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.message).toMatch(/empty/);
    const big = await upload(conversationId, { bytes: new Uint8Array(2 * 1024 * 1024 + 1).fill(7), name: "big.bin" });
    expect(big.status).toBe(413);
    const garbage = await upload(conversationId, {
      bytes: Buffer.concat([Buffer.from("%PDF-garbage"), Buffer.alloc(500, 3)]).subarray(1),
      name: "photo.jpg",
      type: "image/jpeg",
    });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).error.message).toMatch(/photo\.jpg.*not a photo/);
    const notForm = await call("POST", `/conversations/${conversationId}/media`, {
      headers: { ...bearer, "content-type": "application/json" },
      body: "{}",
    });
    expect(notForm.status).toBe(415);
    const tooLongCaption = await upload(conversationId, { bytes: PDF, name: "r.pdf" }, { caption: "x".repeat(1025) });
    expect(tooLongCaption.status).toBe(400);
    await nothingStored(before);
  });

  it("uploads handled at once are capped: one more is a 503 with Retry-After that reads and changes nothing; a client that goes away is no error and frees its place", async () => {
    const { conversationId } = await telegramConversation();
    const before = await counts();
    // MEDIA_MAX_BYTES is 2 MB here: 4 at once, 2 of them for one account.
    expect(t.app.uploads.limit).toBe(4);
    expect(t.app.uploads.perHolder).toBe(2);
    const mine = [slowUpload(conversationId), slowUpload(conversationId)];
    await vi.waitFor(() => expect(t.app.uploads.inUse).toBe(2));
    const third = await upload(conversationId, { bytes: PDF, name: "third.pdf" });
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("5");
    expect((await third.json()).error.message).toMatch(/already sending 2 files, as many as one account sends at once/);
    for (const upload of mine) upload.cut();
    await Promise.all(mine.map((upload) => upload.response));
    expect(t.app.uploads.inUse).toBe(0);
    // The whole process's cap, as if four accounts sent at once (this test has one token).
    const slots = new UploadSlots(2 * 1024 * 1024, null, { perHolder: 4 });
    installRouteApp({ ...t.app, uploads: slots }, TOKEN);
    const slow = Array.from({ length: 4 }, () => slowUpload(conversationId));
    await vi.waitFor(() => expect(slots.inUse).toBe(4));

    const refused = await upload(conversationId, { bytes: PDF, name: "one-more.pdf" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error).toMatchObject({ code: "unavailable", message: expect.stringMatching(/maximum of 4 uploads/) });
    // A declared length over the limit is a 413 from the headers alone, before any byte is read, slots full or not.
    const declared = slowUpload(conversationId, { "content-length": String(64 * 1024 * 1024) });
    expect((await declared.response).status).toBe(413);
    expect(declared.pulled()).toBe(0);

    const errors = vi.spyOn(log, "error");
    const infos = vi.spyOn(log, "info");
    try {
      for (const upload of slow) upload.cut();
      const answers = await Promise.all(slow.map((upload) => upload.response));
      expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400]);
      expect(errors).not.toHaveBeenCalled();
      expect(infos).toHaveBeenCalledWith(
        "http.body_aborted",
        expect.objectContaining({ path: `/api/v1/conversations/${conversationId}/media` }),
      );
    } finally {
      errors.mockRestore();
      infos.mockRestore();
    }
    expect(slots.inUse).toBe(0);
    await nothingStored(before);

    // The places are free again.
    expect((await upload(conversationId, { bytes: PDF, name: "after.pdf" })).status).toBe(201);
    expect(slots.inUse).toBe(0);
  });

  it("an upload to an unknown conversation is a 404 before its body is read: it takes no upload place", async () => {
    const unknown = slowUpload(999_999);
    const answer = await unknown.response;
    expect(answer.status).toBe(404);
    expect((await answer.json()).error.message).toMatch(/conversation not found/);
    expect(unknown.pulled()).toBe(0);
    expect(t.app.uploads.inUse).toBe(0);
  });

  it("uploads slower than the minimum rate are cut with a 408 that frees their places: four trickling a byte at a time no longer hold every place", async () => {
    const { conversationId } = await telegramConversation();
    const before = await counts();
    // A small window and a rate no trickle meets, so the test needs no clock.
    const paced = { ...t.app, uploads: new UploadSlots(2 * 1024 * 1024, { bytesPerSecond: 64 * 1024, windowMs: 100 }, { perHolder: 4 }) };
    installRouteApp(paced, TOKEN);
    const boundary = "trickle-boundary";
    /** The form's start, then one byte of the file every few milliseconds; it would end a whole form after 2,000. */
    const trickle = () => {
      let sent = 0;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (sent === 0)
              controller.enqueue(
                encoder.encode(
                  `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
                ),
              );
            await new Promise((resolve) => setTimeout(resolve, 5));
            sent += 1;
            if (sent <= PDF.byteLength) controller.enqueue(PDF.subarray(sent - 1, sent));
            else {
              controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
              controller.close();
            }
          },
        },
        { highWaterMark: 0 },
      );
      return call("POST", `/conversations/${conversationId}/media`, {
        headers: { ...bearer, "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
      });
    };
    const infos = vi.spyOn(log, "info");
    try {
      const answers = await Promise.all(Array.from({ length: 4 }, trickle));
      expect(answers.map((r) => r.status)).toEqual([408, 408, 408, 408]);
      expect((await answers[0]!.json()).error).toMatchObject({
        code: "request_timeout",
        message: expect.stringMatching(/slower than the minimum of 64 KB\/s/),
      });
      expect(infos).toHaveBeenCalledWith("http.body_too_slow", expect.objectContaining({ minBytesPerSecond: 64 * 1024 }));
    } finally {
      infos.mockRestore();
      installRouteApp(t.app, TOKEN);
    }
    expect(paced.uploads.inUse).toBe(0);
    await nothingStored(before);
    // A whole form at once keeps any pace.
    expect((await upload(conversationId, { bytes: PDF, name: "fast.pdf" })).status).toBe(201);
  });

  it("a session must send the CSRF token, like every mutation", async () => {
    const { conversationId } = await telegramConversation();
    const operator = await t.db.prisma.operator.create({ data: { name: "dana", passwordHash: "scrypt$x$y" } });
    await createSession(t.db, {
      operatorId: operator.id,
      token: "dana-session",
      csrfToken: "dana-csrf",
      expiresAt: new Date(Date.now() + 60_000),
    });
    const before = await counts();
    const cookie = { cookie: `${SESSION_COOKIE}=dana-session` };
    expect((await upload(conversationId, { bytes: PDF, name: "a.pdf" }, {}, cookie as never)).status).toBe(403);
    expect((await upload(conversationId, { bytes: PDF, name: "a.pdf" }, {}, { ...cookie, [CSRF_HEADER]: "wrong" } as never)).status).toBe(
      403,
    );
    await nothingStored(before);
    const ok = await upload(conversationId, { bytes: PDF, name: "a.pdf" }, {}, { ...cookie, [CSRF_HEADER]: "dana-csrf" } as never);
    expect(ok.status).toBe(201);
    expect(telegram.mediaSends()).toHaveLength(1);
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: (await ok.json()).envelopeId } })).from).toBe("operator:dana");
  });

  it("a send whose outcome is unknown (Bot API 500) is kept as possibly delivered with its file, never sent again, and Retry refuses it", async () => {
    const { conversationId } = await telegramConversation();
    telegram.failNext({ status: 500, body: { ok: false, error_code: 500, description: "Internal Server Error" }, method: "sendPhoto" });
    const response = await upload(conversationId, { bytes: await png(), name: "p.png" });
    expect(response.status).toBe(502);
    const { details } = (await response.json()).error;
    expect(details.outcome).toBe("unknown");
    await t.settle();
    expect(telegram.mediaSends()).toHaveLength(1);
    const kept = await t.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" }, include: { attachments: true } });
    expect(kept.platformMessageId).toBeNull();
    expect(kept.attachments).toHaveLength(1);
    const retry = await call("POST", `/envelopes/${details.envelopeId}/retry`);
    expect(retry.status).toBe(400);
    await t.settle();
    expect(telegram.mediaSends()).toHaveLength(1);
  });

  it("LINE: an image goes out by a signed link that serves that file only; forged or expired links are 403; a document and a missing PUBLIC_URL are refused", async () => {
    const conversation = await t.db.prisma.conversation.create({ data: { channel: "line", platformChatId: "Uline0001", type: "private" } });
    const bytes = await jpeg();
    const response = await upload(conversation.id, { bytes, name: "photo.jpg" }, { caption: "here" });
    expect(response.status).toBe(201);
    expect(line.pushes).toHaveLength(1);
    const [image, text] = line.pushes[0]!.messages;
    expect(image).toMatchObject({ type: "image" });
    expect(text).toEqual({ type: "text", text: "here" });
    expect(image.originalContentUrl).toMatch(/^https:\/\/switchboard\.example\/api\/media\/[0-9a-f]{64}\?/);

    const original = await signed(image.originalContentUrl);
    expect(original.status).toBe(200);
    expect(original.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true);
    const preview = await signed(image.previewImageUrl);
    expect(preview.status).toBe(200);
    expect((await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).width).toBeLessThanOrEqual(320);

    const url = new URL(image.originalContentUrl);
    const forged = new URL(url);
    forged.searchParams.set("exp", String(Number(url.searchParams.get("exp")) + 3600));
    expect((await signed(forged.toString())).status).toBe(403);
    const otherFile = new URL(url);
    otherFile.pathname = `/api/media/${"0".repeat(64)}`;
    expect((await signed(otherFile.toString())).status).toBe(403);
    const { sha256 } = await blobStoreFor(t.db).put(bytes, "image/jpeg");
    const expired = signedMediaUrl(PUBLIC_URL, "a-media-url-secret-of-at-least-32-chars", sha256, "original", Date.now() - 2 * 86_400_000);
    expect((await signed(expired)).status).toBe(403);
    const wrongKey = signedMediaUrl(PUBLIC_URL, "another-secret-another-secret-another", sha256, "original");
    expect((await signed(wrongKey)).status).toBe(403);

    // M4A audio carries its duration; a document has no LINE message type.
    expect((await upload(conversation.id, { bytes: M4A, name: "a.m4a" })).status).toBe(201);
    expect(line.pushes[1]!.messages[0]).toMatchObject({ type: "audio", duration: expect.any(Number) });
    expect(line.pushes[1]!.messages[0].duration).toBeGreaterThan(500);
    const pdf = await upload(conversation.id, { bytes: PDF, name: "r.pdf" });
    expect(pdf.status).toBe(400);
    expect((await pdf.json()).error.message).toMatch(/LINE has no message type for files/);

    // Without PUBLIC_URL LINE cannot fetch anything: refused before anything is stored.
    const app = await processHolder.context!;
    processHolder.context = Promise.resolve({ ...app, env: { ...app.env, PUBLIC_URL: undefined } });
    const before = await t.db.prisma.mediaBlob.count();
    const refused = await upload(conversation.id, { bytes: await png(), name: "x.png" });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toMatch(/PUBLIC_URL/);
    expect(await t.db.prisma.mediaBlob.count()).toBe(before);
    expect(line.pushes).toHaveLength(2);
  });
});
