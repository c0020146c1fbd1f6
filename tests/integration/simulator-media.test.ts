import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Of } from "@/lib/media/blob-store";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";
import { callRoute } from "../helpers/route-call";

const API_TOKEN = "simulator-media-api-token-0123456789";
const VOICE = readFileSync("tests/fixtures/media/voice.ogg");
const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);

type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;

/** The simulator's upload as the page makes it: multipart/form-data with the file and its kind. */
async function upload(kind: string, file: { name: string; type: string; bytes: Buffer }) {
  const form = new FormData();
  form.set("kind", kind);
  form.set("file", new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
  const handler = ((await import(resolve("app/api/v1/simulator/files/route.ts"))) as Route).POST;
  const response = await handler(
    new Request("http://localhost/api/v1/simulator/files", {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
      body: form,
    }),
    { params: Promise.resolve({}) },
  );
  return { status: response.status, body: (await response.json()) as any };
}

const simulate = (body: unknown) =>
  callRoute(API_TOKEN, "app/api/v1/simulator/updates/route.ts", "POST", "/api/v1/simulator/updates", {}, body);
const user = { id: 6161, firstName: "Pia", username: "pia_photos" };
const chat = { type: "private", id: 6161 };

describe.each(databases)("the simulator's files on $name", ({ open }) => {
  let testDb: TestDb;
  let t: TestApp;

  beforeAll(async () => {
    testDb = await open();
    // The sandbox as a first start has it: no bot token, no Bot API root, the demo model.
    t = await startTestApp({ db: testDb, wiringChoosesModel: true, env: { SWITCHBOARD_API_TOKEN: API_TOKEN } });
    installRouteApp(t.app, API_TOKEN);
  });
  afterAll(async () => {
    uninstallRouteApp();
    await t.settle();
    await t.stop();
    await testDb.close();
  });

  /** Sends the upload's field with a caption, waits for the fetch and the turn; the stored message, its attachment and the answer. */
  async function send(media: unknown, text: string) {
    const sent = await simulate({ chat, user, text, media });
    expect(sent.status).toBe(200);
    expect(sent.body.result.status).toBe("stored");
    await t.app.media.idle();
    await t.settle();
    const message = await t.db.prisma.message.findFirstOrThrow({ where: { text }, include: { attachments: true } });
    const answer = await t.db.prisma.message.findFirstOrThrow({
      where: { conversationId: message.conversationId, senderKind: "agent", id: { gt: message.id } },
      orderBy: { id: "desc" },
    });
    return { message, attachment: message.attachments[0], answer: answer.text };
  }

  it("a photo: Telegram's JPEG sizes, served by the sandbox's Bot API, fetched and stored, given to the model", async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 40, b: 60 } } })
      .png()
      .toBuffer();
    const uploaded = await upload("photo", { name: "red.png", type: "image/png", bytes: png });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body.field).toBe("photo");
    const [thumb, large] = uploaded.body.value;
    expect(thumb).toMatchObject({ width: 90, height: 68 });
    expect(large).toMatchObject({ width: 640, height: 480, file_id: expect.stringMatching(/^sandbox_photo_[0-9a-f]{64}$/) });

    const { attachment, answer, message } = await send(uploaded.body, "what is in this picture?");
    expect(message.senderUsername).toBe("pia_photos");
    expect(attachment).toMatchObject({
      kind: "photo",
      status: "stored",
      mimeType: "image/jpeg",
      width: 640,
      height: 480,
      sourceRef: large.file_id,
    });
    // The bytes stored are the ones the sandbox served: Telegram's JPEG copy of the picture.
    expect(`sandbox_photo_${attachment.blobSha256}`).toBe(large.file_id);
    expect(answer).toContain("It carries [photo 640×480].");
    expect(answer).toContain("I was given 1 picture of it as image.");
  });

  it("a voice note (OGG/Opus): its duration read from the file, fetched and stored as audio", async () => {
    const uploaded = await upload("voice", { name: "voice.ogg", type: "audio/ogg", bytes: VOICE });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ field: "voice", value: { duration: 1, mime_type: "audio/ogg", file_size: VOICE.length } });
    const { attachment, answer } = await send(uploaded.body, "");
    expect(attachment).toMatchObject({
      kind: "voice",
      status: "stored",
      mimeType: "audio/ogg; codecs=opus",
      durationSeconds: 1,
      blobSha256: sha256Of(VOICE),
    });
    expect(answer).toContain("It carries [voice 0:01].");
  });

  it("a document keeps its name; the bytes decide its type", async () => {
    const uploaded = await upload("document", { name: "plan.pdf", type: "application/pdf", bytes: PDF });
    expect(uploaded.status).toBe(201);
    const { attachment, answer } = await send(uploaded.body, "the floor plan");
    expect(attachment).toMatchObject({ kind: "document", status: "stored", fileName: "plan.pdf", mimeType: "application/pdf" });
    expect(answer).toContain('It carries [document "plan.pdf", 193 bytes].');
  });

  it("a document is stored and served as its bytes' type, never the type the client declared (an SVG declared image/png)", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const uploaded = await upload("document", { name: "logo.png", type: "image/png", bytes: svg });
    expect(uploaded.status).toBe(201);
    // The Message carries the sender's claim, as Telegram's does.
    expect(uploaded.body.value.mime_type).toBe("image/png");
    const { attachment } = await send(uploaded.body, "our logo");
    expect(attachment).toMatchObject({ status: "stored", mimeType: "image/svg+xml" });
    const media = ((await import(resolve("app/api/v1/media/[id]/route.ts"))) as Route).GET;
    const get = (query = "") =>
      media(new Request(`http://localhost/api/v1/media/${attachment.id}${query}`, { headers: { authorization: `Bearer ${API_TOKEN}` } }), {
        params: Promise.resolve({ id: String(attachment.id) }),
      });
    const original = await get();
    expect(original.status).toBe(200);
    expect(original.headers.get("content-type")).toBe("application/octet-stream");
    expect(original.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(Buffer.from(await original.arrayBuffer()).equals(svg)).toBe(true);
    // Not an image: no thumbnail (was a 500, sharp asked to decode an SVG stored as a PNG).
    expect((await get("?size=thumb")).status).toBe(404);
  });

  it("refuses what Telegram would not take, storing nothing; an update may not name a file the sandbox does not hold", async () => {
    const blobs = await t.db.prisma.mediaBlob.count();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const notVoice = await upload("voice", { name: "a.png", type: "audio/ogg", bytes: png });
    expect(notVoice.status).toBe(400);
    expect(notVoice.body.error.message).toContain("OGG/Opus");
    const notPhoto = await upload("photo", { name: "plan.pdf", type: "image/png", bytes: PDF });
    expect(notPhoto.status).toBe(400);
    expect((await upload("sticker", { name: "a.png", type: "image/png", bytes: png })).status).toBe(400);
    expect(await t.db.prisma.mediaBlob.count()).toBe(blobs);
    const forged = await simulate({
      chat,
      user,
      text: "",
      media: {
        field: "document",
        value: { file_id: "AgACAgIAAxkBAAIB", file_unique_id: "x", file_size: 1, file_name: "a", mime_type: "a/b" },
      },
    });
    expect(forged.status).toBe(400);
    expect((await simulate({ chat, user, text: "" })).status).toBe(400);
  });

  it("the sandbox's Bot API: size limits before the download, unknown ids refused as Telegram does, other files unsupported", async () => {
    const telegram = t.app.telegram;
    const signal = new AbortController().signal;
    const voiceId = `sandbox_voice_${sha256Of(VOICE)}`;
    // Stored by the test above; a limit below its size is too large (getFile says its size).
    expect(await telegram.downloadMedia!({ sourceRef: voiceId, maxBytes: 100, signal })).toEqual({
      ok: false,
      outcome: "too_large",
      sizeBytes: VOICE.length,
    });
    const served = await telegram.downloadMedia!({ sourceRef: voiceId, maxBytes: 1_000_000, signal });
    expect(served.ok && sha256Of(served.bytes)).toBe(sha256Of(VOICE));
    expect(await telegram.downloadMedia!({ sourceRef: `sandbox_photo_${"0".repeat(64)}`, maxBytes: 1_000_000, signal })).toMatchObject({
      ok: false,
      outcome: "failed",
      reason: expect.stringContaining("wrong file_id"),
    });
    expect(await telegram.downloadMedia!({ sourceRef: "AgACAgIAAxkBAAIBsandbox", maxBytes: 1_000_000, signal })).toMatchObject({
      ok: false,
      outcome: "unsupported",
      reason: expect.stringContaining("sandbox has no bot token"),
    });
  });
});
