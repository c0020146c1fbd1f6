import sharp from "sharp";
import { z } from "zod";
import { AppError } from "../../errors";
import type { StoredBlob } from "../../media/blob-store";
import { inspectBytes, MAX_IMAGE_PIXELS } from "../../media/inspect";
import { oggOpusDurationSeconds } from "../../media/ogg-duration";

/**
 * Files the simulator's user sends, as Telegram holds them: the bytes stored once
 * (the media blob store, so every instance can serve them), named by a file_id the
 * sandbox's own Bot API (sandbox-bot-api.ts) answers getFile and the download for.
 * The id names the bytes' sha256, so serving needs no other record.
 */
export const SANDBOX_FILE_ID = /^sandbox_(photo|document|voice)_([0-9a-f]{64})$/;
export type SandboxFileKind = "photo" | "document" | "voice";

const fileId = (kind: SandboxFileKind, sha256: string) => `sandbox_${kind}_${sha256}`;
const uniqueId = (sha256: string) => sha256.slice(0, 16);

/** Telegram's own size limits for what a bot downloads (getFile: 20 MB). */
export const SANDBOX_MAX_FILE_BYTES = 20 * 1024 * 1024;

const sandboxId = (kind: SandboxFileKind) =>
  z
    .string()
    .regex(SANDBOX_FILE_ID)
    .refine((id) => id.startsWith(`sandbox_${kind}_`));
const sandboxFile = (kind: SandboxFileKind) => ({
  file_id: sandboxId(kind),
  file_unique_id: z.string().max(64),
  file_size: z.number().int().min(0),
});

/** A file the simulator's message carries: exactly the field Telegram puts in a Message, its ids the sandbox's own. */
export const sandboxMediaSchema = z.discriminatedUnion("field", [
  z.strictObject({
    field: z.literal("photo"),
    value: z
      .array(z.strictObject({ ...sandboxFile("photo"), width: z.number().int().min(1), height: z.number().int().min(1) }))
      .min(1)
      .max(4),
  }),
  z.strictObject({
    field: z.literal("document"),
    value: z.strictObject({ ...sandboxFile("document"), file_name: z.string().max(255), mime_type: z.string().max(255) }),
  }),
  z.strictObject({
    field: z.literal("voice"),
    value: z.strictObject({ ...sandboxFile("voice"), duration: z.number().int().min(0), mime_type: z.literal("audio/ogg") }),
  }),
]);
export type SandboxMedia = z.infer<typeof sandboxMediaSchema>;

type Put = (bytes: Uint8Array, mimeType: string) => Promise<StoredBlob>;

/**
 * Takes a file the operator picked and keeps it as Telegram would: a photo becomes
 * Telegram's JPEG copies (the largest at most 1280 px, and a 90 px thumbnail), a
 * voice note must be OGG/Opus (its duration read from the file), a document stays as
 * it is. Answers the Message field that carries it. Bad bytes are a 400, nothing stored.
 */
export async function keepSandboxFile(
  put: Put,
  kind: SandboxFileKind,
  file: { bytes: Uint8Array; name: string; declaredType: string },
): Promise<SandboxMedia> {
  if (file.bytes.byteLength === 0) throw new AppError("bad_request", "the file is empty");
  if (kind === "photo") {
    const inspected = await inspectBytes(file.bytes, "photo");
    if (!inspected.ok) throw new AppError("bad_request", `not a photo: ${inspected.reason}`);
    const sizes = [];
    for (const side of [90, 1280]) {
      const { data, info } = await sharp(file.bytes, { limitInputPixels: MAX_IMAGE_PIXELS })
        .rotate()
        .resize(side, side, { fit: "inside", withoutEnlargement: true })
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: 87 })
        .toBuffer({ resolveWithObject: true });
      const blob = await put(data, "image/jpeg");
      sizes.push({
        file_id: fileId("photo", blob.sha256),
        file_unique_id: uniqueId(blob.sha256),
        file_size: blob.sizeBytes,
        width: info.width,
        height: info.height,
      });
    }
    return { field: "photo", value: sizes };
  }
  if (kind === "voice") {
    const duration = oggOpusDurationSeconds(file.bytes);
    if (duration === null) throw new AppError("bad_request", "a voice note is an OGG/Opus file (what Telegram records)");
    const blob = await put(file.bytes, "audio/ogg");
    return {
      field: "voice",
      value: {
        file_id: fileId("voice", blob.sha256),
        file_unique_id: uniqueId(blob.sha256),
        file_size: blob.sizeBytes,
        duration: Math.round(duration),
        mime_type: "audio/ogg",
      },
    };
  }
  // The blob's type is what serving trusts (lib/media/serve.ts), and a later put of the same bytes
  // (the fetch of this very file) keeps it: the bytes' own, never the client's claim, which the
  // Message carries as Telegram's does.
  const inspected = await inspectBytes(file.bytes, "document");
  const blob = await put(file.bytes, inspected.ok ? inspected.mimeType : "application/octet-stream");
  return {
    field: "document",
    value: {
      file_id: fileId("document", blob.sha256),
      file_unique_id: uniqueId(blob.sha256),
      file_size: blob.sizeBytes,
      file_name: file.name,
      mime_type: file.declaredType || "application/octet-stream",
    },
  };
}
