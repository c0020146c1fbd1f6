import { fileTypeFromBuffer } from "file-type";
import sharp from "sharp";
import type { AttachmentKind } from "./types";

/**
 * An image with more pixels than this is refused before it is decoded: a few
 * kilobytes of PNG can declare 100,000 × 100,000 pixels (a decompression bomb).
 * 50 megapixels is above any phone camera's photo and Telegram's own 10,000 px sum.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** What the bytes are, by their content; the sender's name and declared type are never trusted. */
export type Inspected =
  | {
      ok: true;
      mimeType: string;
      /** How the console may show it: raster images, audio and video inline; everything else as a download. */
      family: "image" | "audio" | "video" | "file";
      width?: number;
      height?: number;
    }
  | { ok: false; reason: string };

/** Raster images a browser and the model take as they are. */
const RASTER = new Set(["image/jpeg", "image/png", "image/webp", "image/gif"]);
type Family = "image" | "audio" | "video" | "file";
const AUDIO = /^audio\//;
const VIDEO = /^video\//;

/** Which families each kind's bytes must belong to (a "photo" that is a PDF is a failed photo). */
const EXPECTED: Record<AttachmentKind, readonly Family[]> = {
  photo: ["image"],
  sticker: ["image", "video", "file"], // static webp, video webm, animated .tgs (gzipped Lottie)
  animation: ["video", "image"], // Telegram sends MP4; GIFs also arrive as themselves
  video: ["video"],
  video_note: ["video"],
  voice: ["audio", "video"], // OGG/Opus; some clients label Opus in WebM/OGG as video
  audio: ["audio", "video"],
  document: ["image", "audio", "video", "file"],
};

/**
 * Sniffs `bytes` and checks them against the kind the platform said they are: an
 * image must decode whole (a truncated one fails) and stay under the pixel limit.
 */
export async function inspectBytes(bytes: Uint8Array, kind: AttachmentKind): Promise<Inspected> {
  if (bytes.byteLength === 0) return { ok: false, reason: "the file is empty" };
  const sniffed = await sniff(bytes);
  const family = familyOf(sniffed);
  if (!EXPECTED[kind].includes(family))
    // biome-ignore lint/correctness/usePlaywrightValidDescribeCallback: our describe() below names a MIME type; this is not Playwright's test.describe (Biome 2.6 matches any call named describe).
    return { ok: false, reason: `the bytes are ${describe(sniffed)}, not a ${kind.replaceAll("_", " ")}` };
  if (family !== "image") return { ok: true, mimeType: sniffed, family };
  return checkImage(bytes, sniffed);
}

async function checkImage(bytes: Uint8Array, mimeType: string): Promise<Inspected> {
  try {
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    if (!width || !height) return { ok: false, reason: "the image has no size" };
    if (width * height > MAX_IMAGE_PIXELS)
      return { ok: false, reason: `the image is ${width}×${height} pixels, over the limit of ${MAX_IMAGE_PIXELS / 1e6} megapixels` };
    // Decoding it whole (to a tiny size) finds a truncated or corrupt image now, not in a turn.
    await sharp(bytes, { failOn: "truncated", limitInputPixels: MAX_IMAGE_PIXELS }).resize(8, 8, { fit: "inside" }).raw().toBuffer();
    return { ok: true, mimeType, family: "image", width, height };
  } catch (error) {
    return { ok: false, reason: `the image cannot be read (${shortReason(error)})` };
  }
}

async function sniff(bytes: Uint8Array): Promise<string> {
  const found = await fileTypeFromBuffer(bytes);
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("utf8");
  // SVG is XML (file-type says application/xml, or nothing without the declaration).
  if ((!found || found.mime === "application/xml") && /<svg[\s>]/i.test(head)) return "image/svg+xml";
  if (found) return found.mime;
  if (!head.includes("\u0000") && !head.includes("\ufffd")) return "text/plain";
  return "application/octet-stream";
}

function familyOf(mimeType: string): Family {
  if (RASTER.has(mimeType)) return "image";
  if (AUDIO.test(mimeType)) return "audio";
  if (VIDEO.test(mimeType)) return "video";
  return "file";
}

function describe(mimeType: string): string {
  return mimeType === "application/octet-stream" ? "of no known type" : mimeType;
}

function shortReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0].slice(0, 120);
}
