import sharp from "sharp";
import { MAX_IMAGE_PIXELS } from "./inspect";

/** The long side of an image given to a model: Anthropic's recommended maximum (larger is downscaled by the provider anyway, and costs more tokens). */
export const MODEL_IMAGE_LONG_SIDE = 1568;
/** The long side of a console thumbnail. */
export const THUMBNAIL_LONG_SIDE = 320;

export type EncodedImage = { bytes: Buffer; mimeType: "image/jpeg" | "image/png"; width: number; height: number };

/**
 * Re-encodes an image for a model: turned upright by its EXIF orientation, downscaled
 * to at most 1,568 px on the long side, metadata (GPS, camera, EXIF) dropped. The first
 * frame of an animated image. PNG where it has transparency (stickers), else JPEG.
 */
export function imageForModel(bytes: Uint8Array): Promise<EncodedImage> {
  return reencode(bytes, MODEL_IMAGE_LONG_SIDE, 85);
}

/** A small preview for the console's timeline (`GET /api/v1/media/{id}?size=thumb`). */
export function thumbnail(bytes: Uint8Array): Promise<EncodedImage> {
  return reencode(bytes, THUMBNAIL_LONG_SIDE, 75);
}

async function reencode(bytes: Uint8Array, longSide: number, quality: number): Promise<EncodedImage> {
  const source = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "truncated" });
  const { hasAlpha } = await source.metadata();
  // sharp writes no metadata unless asked (withMetadata), so GPS and EXIF are gone.
  const resized = source.rotate().resize(longSide, longSide, { fit: "inside", withoutEnlargement: true });
  const encoded = hasAlpha ? resized.png({ compressionLevel: 9 }) : resized.jpeg({ quality, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { bytes: data, mimeType: hasAlpha ? "image/png" : "image/jpeg", width: info.width, height: info.height };
}
