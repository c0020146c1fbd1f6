import PQueue from "p-queue";
import sharp from "sharp";
import type { Database } from "../db/database";
import { blobStoreFor } from "./blob-store";
import { thumbnail } from "./image";

/**
 * What the console may show in the page: raster images, audio and video, which a
 * browser renders without running anything. Everything else (SVG, which can carry
 * script; HTML; PDF; archives; unknown bytes) is served as a download with a
 * neutral type, so it never runs in this site's origin.
 */
const INLINE = /^(image\/(jpeg|png|webp|gif)|audio\/[\w.+-]+|video\/[\w.+-]+)(\s*;\s*[\w-]+=[\w.+-]+)*$/;

export function servedInline(mimeType: string): boolean {
  return INLINE.test(mimeType);
}

export function isRasterImage(mimeType: string): boolean {
  return /^image\/(jpeg|png|webp|gif)$/.test(mimeType);
}

/**
 * One file as it is served: its bytes (a stream read in chunks for a stored original,
 * never whole in memory; a small buffer for a thumbnail or a poster), the type to send,
 * whether inline, and a validator.
 */
export type ServedFile = {
  body: Uint8Array | ReadableStream<Uint8Array>;
  sizeBytes: number;
  contentType: string;
  inline: boolean;
  fileName: string | null;
  etag: string;
};

export type MediaRead =
  | { ok: true; file: ServedFile }
  | { ok: false; reason: "not_found" | "not_stored" | "no_thumbnail"; status?: string };

/** Thumbnails are re-encoded once per blob and kept in memory (a few hundred small JPEGs). */
const THUMBS_MAX = 500;
const thumbs = new Map<string, Promise<{ bytes: Buffer; mimeType: string } | null>>();
/**
 * A thumbnail decodes the whole original (up to MEDIA_MAX_BYTES): two at a time in the
 * process, the others wait their turn, so previews of many large images asked for at
 * once never hold them all.
 */
const thumbnailing = new PQueue({ concurrency: 2 });

function cachedThumbnail(db: Database, sha256: string): Promise<{ bytes: Buffer; mimeType: string } | null> {
  const hit = thumbs.get(sha256);
  if (hit) {
    // Most recently used last: the oldest is the first to go.
    thumbs.delete(sha256);
    thumbs.set(sha256, hit);
    return hit;
  }
  const made = thumbnailing.add(async () => {
    const blob = await blobStoreFor(db).get(sha256);
    if (!blob) return null;
    const t = await thumbnail(blob.bytes);
    return { bytes: t.bytes, mimeType: t.mimeType };
  });
  // Not kept when there was nothing to make it from, or it failed: asked again, it is tried again.
  made.then(
    (made) => {
      if (!made) thumbs.delete(sha256);
    },
    () => thumbs.delete(sha256),
  );
  thumbs.set(sha256, made);
  if (thumbs.size > THUMBS_MAX) thumbs.delete(thumbs.keys().next().value!);
  return made;
}

/** A blob's bytes as served: the original (with its sniffed type, streamed) or its thumbnail (raster images only). */
export async function serveBlob(
  db: Database,
  sha256: string,
  options: { variant: "original" | "thumb"; fileName?: string | null },
): Promise<MediaRead> {
  if (options.variant === "thumb") {
    const row = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { mimeType: true } });
    if (!row) return { ok: false, reason: "not_stored" };
    if (!isRasterImage(row.mimeType)) return { ok: false, reason: "no_thumbnail" };
    const thumb = await cachedThumbnail(db, sha256);
    if (!thumb) return { ok: false, reason: "not_stored" };
    return { ok: true, file: small(thumb.bytes, thumb.mimeType, `"${sha256}-thumb"`) };
  }
  const blob = await blobStoreFor(db).open(sha256);
  if (!blob) return { ok: false, reason: "not_stored" };
  const inline = servedInline(blob.mimeType);
  return {
    ok: true,
    file: {
      body: blob.stream,
      sizeBytes: blob.sizeBytes,
      contentType: inline ? blob.mimeType : "application/octet-stream",
      inline,
      fileName: options.fileName ?? null,
      etag: `"${sha256}"`,
    },
  };
}

/** A small image made here (a thumbnail, a poster), served inline from memory. */
function small(bytes: Buffer, contentType: string, etag: string): ServedFile {
  return { body: bytes, sizeBytes: bytes.byteLength, contentType, inline: true, fileName: null, etag };
}

/** An attachment's bytes for GET /api/v1/media/{id}: its stored, sniffed type; never the sender's claim. */
export async function serveAttachment(db: Database, id: number, variant: "original" | "thumb"): Promise<MediaRead> {
  const attachment = await db.prisma.attachment.findUnique({
    where: { id },
    select: { status: true, blobSha256: true, fileName: true },
  });
  if (!attachment) return { ok: false, reason: "not_found" };
  if (attachment.status !== "stored" || !attachment.blobSha256) return { ok: false, reason: "not_stored", status: attachment.status };
  return serveBlob(db, attachment.blobSha256, { variant, fileName: attachment.fileName });
}

let poster: Promise<Buffer> | undefined;
/** A plain dark frame: LINE's video message needs a preview image, and a video's frames need a decoder we do not ship. */
export function videoPoster(): Promise<Buffer> {
  poster ??= sharp({ create: { width: 320, height: 180, channels: 3, background: { r: 32, g: 36, b: 44 } } })
    .jpeg({ quality: 70 })
    .toBuffer();
  return poster;
}

/** What a signed link serves (lib/media/signed-url.ts): the blob, or its preview (a thumbnail; a poster frame for a video). */
export async function serveSigned(db: Database, sha256: string, variant: "original" | "preview"): Promise<MediaRead> {
  if (variant === "original") return serveBlob(db, sha256, { variant: "original" });
  const blob = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { mimeType: true } });
  if (!blob) return { ok: false, reason: "not_stored" };
  if (isRasterImage(blob.mimeType)) return serveBlob(db, sha256, { variant: "thumb" });
  if (/^video\//.test(blob.mimeType)) return { ok: true, file: small(await videoPoster(), "image/jpeg", '"poster"') };
  return { ok: false, reason: "no_thumbnail" };
}
