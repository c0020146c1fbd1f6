import { z } from "zod";
import type { InboundAttachment, SharedContent } from "../../media/types";

/**
 * What a LINE message carries besides text (Messaging API webhook message objects:
 * image, video, audio, file, location, sticker). Image, video and audio bytes come
 * from the content endpoint by message id, or from an external provider's
 * `originalContentUrl`; a file always from the content endpoint; stickers have no
 * content to fetch (recorded "unsupported", described by their keywords). A
 * message type the product does not know becomes an "other" item: never dropped.
 */

const name = z.string().max(4096);
const provider = z.looseObject({ type: z.string().max(32), originalContentUrl: z.string().max(2000).optional() }).optional();
const schemas = {
  image: z.looseObject({ contentProvider: provider, imageSet: z.looseObject({ id: z.string().min(1).max(128) }).optional() }),
  video: z.looseObject({ contentProvider: provider, duration: z.number().min(0).optional() }),
  audio: z.looseObject({ contentProvider: provider, duration: z.number().min(0).optional() }),
  file: z.looseObject({ fileName: name.optional(), fileSize: z.number().int().min(0).optional() }),
  location: z.looseObject({
    title: name.optional(),
    address: name.optional(),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  }),
  sticker: z.looseObject({
    packageId: z.string().max(64).optional(),
    stickerId: z.string().max(64).optional(),
    stickerResourceType: z.string().max(64).optional(),
    keywords: z.array(name).max(100).optional(),
    text: name.optional(),
  }),
};

const KIND = { image: "photo", video: "video", audio: "audio" } as const;

export type LineMedia = { attachments: InboundAttachment[]; shared?: SharedContent; mediaGroupId?: string };

/** Where the bytes of an image, video or audio come from: LINE's content endpoint, or an external provider's HTTPS URL. */
function sourceOf(id: string, contentProvider: z.infer<typeof provider>): Pick<InboundAttachment, "source" | "sourceRef"> {
  const url = contentProvider?.type === "external" ? contentProvider.originalContentUrl : undefined;
  return url && /^https:\/\//i.test(url) ? { source: "url", sourceRef: url } : { source: "line", sourceRef: id };
}

export function lineMedia(message: { id?: string; type: string } & Record<string, unknown>): LineMedia {
  const id = message.id ?? "";
  const none: LineMedia = { attachments: [] };
  switch (message.type) {
    case "text":
      return none;
    case "image": {
      const m = schemas.image.safeParse(message);
      if (!m.success || !id) break;
      return {
        attachments: [{ kind: KIND.image, ...sourceOf(id, m.data.contentProvider) }],
        // Several images sent together share an imageSet: LINE's album.
        ...(m.data.imageSet ? { mediaGroupId: `line:${m.data.imageSet.id}` } : {}),
      };
    }
    case "video":
    case "audio": {
      const m = schemas[message.type].safeParse(message);
      if (!m.success || !id) break;
      // LINE gives durations in milliseconds. Capped at the column's 32-bit integer, like sizes
      // (a damaged event's 1e308 failed PostgreSQL's insert: a 500, and the batch's good events with it).
      const durationSeconds = m.data.duration === undefined ? undefined : Math.min(Math.round(m.data.duration / 1000), 2_147_483_647);
      return {
        attachments: [
          {
            kind: KIND[message.type],
            ...sourceOf(id, m.data.contentProvider),
            ...(durationSeconds !== undefined ? { durationSeconds } : {}),
          },
        ],
      };
    }
    case "file": {
      const m = schemas.file.safeParse(message);
      if (!m.success || !id) break;
      return {
        attachments: [
          {
            kind: "document",
            source: "line",
            sourceRef: id,
            ...(m.data.fileName ? { fileName: m.data.fileName } : {}),
            ...(m.data.fileSize !== undefined ? { sizeBytes: Math.min(m.data.fileSize, 2_147_483_647) } : {}),
          },
        ],
      };
    }
    case "location": {
      const m = schemas.location.safeParse(message);
      if (!m.success) break;
      const { latitude, longitude, title, address } = m.data;
      return {
        attachments: [],
        shared: { type: "location", latitude, longitude, ...(title ? { title } : {}), ...(address ? { address } : {}) },
      };
    }
    case "sticker": {
      const m = schemas.sticker.safeParse(message);
      if (!m.success) break;
      const details = Object.fromEntries(
        Object.entries({
          packageId: m.data.packageId,
          stickerId: m.data.stickerId,
          format: m.data.stickerResourceType,
          keywords: m.data.keywords?.slice(0, 8),
          text: m.data.text,
        }).filter(([, v]) => v !== undefined),
      );
      return {
        attachments: [
          {
            kind: "sticker",
            source: "line",
            sourceRef: id || `${m.data.packageId}/${m.data.stickerId}`,
            details,
            unsupported: "LINE stickers have no content to download",
          },
        ],
      };
    }
  }
  return { attachments: [], shared: { type: "other", kind: message.type.slice(0, 64) } };
}
