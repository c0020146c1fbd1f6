import type { ModelMessage } from "ai";
import { IMAGE_REF_PREFIX, type Prompt } from "../context/prompt";
import type { Database } from "../db/database";
import { log } from "../log";
import { type BlobStore, blobStoreFor } from "./blob-store";
import { imageForModel } from "./image";

/**
 * The prompt as the model gets it: each image part's reference (`/api/v1/media/<id>`,
 * as the turn is recorded) replaced by the picture re-encoded for a model (upright,
 * long side ≤ 1,568 px, no metadata: ./image.ts), made once per file and kept. A
 * picture whose bytes are not stored, or do not decode, is left out: its message keeps
 * its text line, and the turn goes on.
 */
export async function withImageBytes(db: Database, prompt: Prompt): Promise<Prompt> {
  const ids = prompt.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.flatMap((p) => refOf(p) ?? []) : []));
  if (ids.length === 0) return prompt;
  const rows = await db.prisma.attachment.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, blobSha256: true } });
  const store = blobStoreFor(db);
  const images = new Map<number, { bytes: Uint8Array; mediaType: string }>();
  await Promise.all(
    rows.map(async (row) => {
      if (row.status !== "stored" || !row.blobSha256) return;
      try {
        const copy = (await store.getModelCopy(row.blobSha256)) ?? (await makeModelCopy(store, row.blobSha256));
        if (copy) images.set(row.id, { bytes: new Uint8Array(copy.bytes), mediaType: copy.mimeType });
      } catch (error) {
        log.warn("media.image_for_model_failed", { attachmentId: row.id, error: (error as Error).message });
      }
    }),
  );
  const messages = prompt.messages.map((m): ModelMessage => {
    if (m.role !== "user" || !Array.isArray(m.content)) return m;
    const content = m.content.flatMap((part) => {
      const id = refOf(part);
      if (id === null) return [part];
      const image = images.get(id);
      return image ? [{ type: "image" as const, image: image.bytes, mediaType: image.mediaType }] : [];
    });
    return { ...m, content };
  });
  return { ...prompt, messages };
}

/**
 * Re-encodes the original for the model once and keeps the result with the blob: a large
 * photo costs a few hundred milliseconds of CPU to re-encode, and every later turn that
 * shows it (the history keeps it in view) sends the kept copy. Null when the original is gone.
 */
async function makeModelCopy(store: BlobStore, sha256: string): Promise<{ bytes: Buffer; mimeType: string } | null> {
  const blob = await store.get(sha256);
  if (!blob) return null;
  const encoded = await imageForModel(blob.bytes);
  // Not kept (the disk refused): this turn still shows the picture, and the next makes it again.
  await store.putModelCopy(sha256, encoded.bytes, encoded.mimeType).catch((error: unknown) => {
    log.warn("media.model_copy_not_kept", { sha256, error: (error as Error).message });
  });
  return { bytes: encoded.bytes, mimeType: encoded.mimeType };
}

function refOf(part: unknown): number | null {
  const p = part as { type?: unknown; image?: unknown };
  if (p.type !== "image" || typeof p.image !== "string" || !p.image.startsWith(IMAGE_REF_PREFIX)) return null;
  const id = Number(p.image.slice(IMAGE_REF_PREFIX.length));
  return Number.isSafeInteger(id) ? id : null;
}
