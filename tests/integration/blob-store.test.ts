import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { blobStoreFor, sha256Of } from "@/lib/media/blob-store";
import { databases, type TestDb } from "../helpers/db";

const PNG_1PX = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe.each(databases)("media blobs on $name", ({ name, open }) => {
  let t: TestDb | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("keeps one copy per distinct file, serves it back, and removes it once nothing refers to it", async () => {
    t = await open();
    const store = blobStoreFor(t.db);
    const first = await store.put(PNG_1PX, "image/png");
    const again = await store.put(PNG_1PX, "image/png");
    expect(first).toEqual({ sha256: sha256Of(PNG_1PX), sizeBytes: PNG_1PX.byteLength });
    expect(again).toEqual(first);
    expect(await t.db.prisma.mediaBlob.count()).toBe(1);
    const read = await store.get(first.sha256);
    expect(read?.mimeType).toBe("image/png");
    expect(Buffer.compare(read?.bytes ?? Buffer.alloc(0), PNG_1PX)).toBe(0);
    if (name === "sqlite") {
      // Beside the database, not inside it.
      const file = join(dirname(t.db.sqliteFile ?? ""), "media", first.sha256.slice(0, 2), first.sha256);
      expect(existsSync(file)).toBe(true);
      expect((await t.db.prisma.mediaBlob.findUnique({ where: { sha256: first.sha256 } }))?.data).toBeNull();
    }
    expect(await store.get("0".repeat(64))).toBeNull();
    expect(await store.get("../../etc/passwd")).toBeNull();
    expect(await store.removeUnreferenced([first.sha256])).toBe(1);
    expect(await store.get(first.sha256)).toBeNull();
    expect(await t.db.prisma.mediaBlob.count()).toBe(0);
  });

  it("keeps the model's copy of an image with its blob, and removes it with the blob", async () => {
    t = await open();
    const store = blobStoreFor(t.db);
    const original = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c03020" } })
      .jpeg()
      .toBuffer();
    const copy = await sharp(original).resize(20).jpeg().toBuffer();
    const { sha256 } = await store.put(original, "image/jpeg");
    expect(await store.getModelCopy(sha256)).toBeNull();
    await store.putModelCopy(sha256, copy, "image/jpeg");
    const kept = await store.getModelCopy(sha256);
    expect(kept?.mimeType).toBe("image/jpeg");
    expect(kept!.bytes.equals(copy)).toBe(true);
    const copyFile = join(dirname(t.db.sqliteFile ?? ""), "media", sha256.slice(0, 2), `${sha256}.model`);
    if (name === "sqlite") expect(existsSync(copyFile)).toBe(true);
    expect(await store.removeUnreferenced([sha256])).toBe(1);
    expect(await store.getModelCopy(sha256)).toBeNull();
    if (name === "sqlite") expect(existsSync(copyFile)).toBe(false);
    // A copy for a blob that is gone keeps nothing.
    await store.putModelCopy(sha256, copy, "image/jpeg");
    expect(await store.getModelCopy(sha256)).toBeNull();
    if (name === "sqlite") expect(existsSync(copyFile)).toBe(false);
  });

  it("keeps a blob whose bytes were put again after the removal began (another message storing the same file)", async () => {
    t = await open();
    const store = blobStoreFor(t.db);
    const { sha256 } = await store.put(PNG_1PX, "image/png");
    const removalStarted = new Date(Date.now() - 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.put(PNG_1PX, "image/png");
    expect(await store.removeUnreferenced([sha256], removalStarted)).toBe(0);
    expect(await store.get(sha256)).not.toBeNull();
    // Nothing put since: it goes.
    expect(await store.removeUnreferenced([sha256])).toBe(1);
    expect(await store.get(sha256)).toBeNull();
  });

  it("keeps a blob that an attachment still refers to", async () => {
    t = await open();
    const store = blobStoreFor(t.db);
    const { sha256 } = await store.put(PNG_1PX, "image/png");
    const conversation = await t.db.prisma.conversation.create({
      data: { channel: "telegram", platformChatId: "42", type: "private" },
    });
    const message = await t.db.prisma.message.create({
      data: { conversationId: conversation.id, direction: "inbound", senderKind: "user", text: "", sentAt: new Date() },
    });
    await t.db.prisma.attachment.create({
      data: { messageId: message.id, kind: "photo", source: "telegram", sourceRef: "AgAC", status: "stored", blobSha256: sha256 },
    });
    expect(await store.removeUnreferenced([sha256])).toBe(0);
    expect(await store.get(sha256)).not.toBeNull();
  });
});
