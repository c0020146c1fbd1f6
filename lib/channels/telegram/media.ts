import { z } from "zod";
import type { InboundAttachment, SharedContent } from "../../media/types";

/**
 * What a Telegram message carries besides its text (Bot API: PhotoSize, Video,
 * Animation, Audio, Voice, VideoNote, Document, Sticker, Location, Venue, Contact,
 * Poll, Dice): the files as attachments to fetch later, the rest as shared content.
 * Each field is read on its own: a field of an unexpected shape becomes an "other"
 * item named by its field, so nothing is dropped silently and one odd field never
 * makes the whole update unreadable.
 */

const fileId = z.string().min(1).max(1024);
const size = z.number().int().min(0).optional();
const dimension = z.number().int().min(0).max(1_000_000);
const duration = z.number().min(0).max(1_000_000_000);
const name = z.string().max(4096);

const file = { file_id: fileId, file_unique_id: z.string().max(1024).optional(), file_size: size };
const photoSize = z.looseObject({ ...file, width: dimension, height: dimension });
const thumbnail = z.looseObject({ file_id: fileId }).optional();

const schemas = {
  photo: z.array(photoSize).min(1).max(64),
  video: z.looseObject({
    ...file,
    width: dimension.optional(),
    height: dimension.optional(),
    duration: duration.optional(),
    file_name: name.optional(),
    mime_type: name.optional(),
    thumbnail,
  }),
  animation: z.looseObject({
    ...file,
    width: dimension.optional(),
    height: dimension.optional(),
    duration: duration.optional(),
    file_name: name.optional(),
    mime_type: name.optional(),
    thumbnail,
  }),
  audio: z.looseObject({
    ...file,
    duration: duration.optional(),
    performer: name.optional(),
    title: name.optional(),
    file_name: name.optional(),
    mime_type: name.optional(),
    thumbnail,
  }),
  voice: z.looseObject({ ...file, duration: duration.optional(), mime_type: name.optional() }),
  video_note: z.looseObject({ ...file, length: dimension.optional(), duration: duration.optional(), thumbnail }),
  document: z.looseObject({ ...file, file_name: name.optional(), mime_type: name.optional(), thumbnail }),
  sticker: z.looseObject({
    ...file,
    type: z.string().max(32).optional(),
    width: dimension.optional(),
    height: dimension.optional(),
    is_animated: z.boolean().optional(),
    is_video: z.boolean().optional(),
    emoji: name.optional(),
    set_name: name.optional(),
    thumbnail,
  }),
} as const;

const location = z.looseObject({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) });
const shared = {
  venue: z.looseObject({ location, title: name, address: name.optional() }),
  location,
  contact: z.looseObject({
    phone_number: name.optional(),
    first_name: name,
    last_name: name.optional(),
    user_id: z.number().int().optional(),
  }),
  poll: z.looseObject({ question: name, options: z.array(z.looseObject({ text: name })).max(100) }),
  dice: z.looseObject({ emoji: name, value: z.number().int() }),
} as const;

/** Fields Telegram sends that the product names but does not show (story, game, invoice…). */
const OTHER = ["story", "paid_media", "game", "invoice", "giveaway", "giveaway_winners", "checklist"] as const;

/** Attachment.sizeBytes is a 32-bit integer; a larger declared size is too large to fetch anyway. */
const clampSize = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.min(bytes, 2_147_483_647));
const seconds = (value: number | undefined) => (value === undefined ? undefined : Math.round(value));

/** The file's fields every Telegram attachment has. */
function base(kind: InboundAttachment["kind"], f: { file_id: string; file_unique_id?: string; file_size?: number }): InboundAttachment {
  return {
    kind,
    source: "telegram",
    sourceRef: f.file_id,
    ...(f.file_unique_id ? { platformFileUniqueId: f.file_unique_id } : {}),
    ...(f.file_size !== undefined ? { sizeBytes: clampSize(f.file_size) } : {}),
  };
}

const defined = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };

function attachmentOf(field: keyof typeof schemas, value: unknown): InboundAttachment | null {
  switch (field) {
    case "photo": {
      const sizes = schemas.photo.safeParse(value);
      if (!sizes.success) return null;
      // Telegram lists the sizes of one photo smallest first; the largest is the photo.
      const largest = sizes.data.reduce((a, b) => (b.width * b.height >= a.width * a.height ? b : a));
      return { ...base("photo", largest), width: largest.width, height: largest.height, mimeType: "image/jpeg" };
    }
    case "video":
    case "animation": {
      const v = schemas[field].safeParse(value);
      if (!v.success) return null;
      return {
        ...base(field, v.data),
        ...defined({
          width: v.data.width,
          height: v.data.height,
          durationSeconds: seconds(v.data.duration),
          fileName: v.data.file_name,
          mimeType: v.data.mime_type,
        }),
        ...(v.data.thumbnail ? { details: { thumbnailFileId: v.data.thumbnail.file_id } } : {}),
      };
    }
    case "audio": {
      const a = schemas.audio.safeParse(value);
      if (!a.success) return null;
      const details = defined({ performer: a.data.performer, title: a.data.title });
      return {
        ...base("audio", a.data),
        ...defined({ durationSeconds: seconds(a.data.duration), fileName: a.data.file_name, mimeType: a.data.mime_type }),
        ...(Object.keys(details).length ? { details } : {}),
      };
    }
    case "voice": {
      const a = schemas.voice.safeParse(value);
      if (!a.success) return null;
      return { ...base("voice", a.data), ...defined({ durationSeconds: seconds(a.data.duration), mimeType: a.data.mime_type }) };
    }
    case "video_note": {
      const a = schemas.video_note.safeParse(value);
      if (!a.success) return null;
      // A round video: `length` is its diameter.
      return {
        ...base("video_note", a.data),
        ...defined({ width: a.data.length, height: a.data.length, durationSeconds: seconds(a.data.duration) }),
        mimeType: "video/mp4",
      };
    }
    case "document": {
      const d = schemas.document.safeParse(value);
      if (!d.success) return null;
      return { ...base("document", d.data), ...defined({ fileName: d.data.file_name, mimeType: d.data.mime_type }) };
    }
    case "sticker": {
      const s = schemas.sticker.safeParse(value);
      if (!s.success) return null;
      const format = s.data.is_video ? "video" : s.data.is_animated ? "animated" : "static";
      return {
        ...base("sticker", s.data),
        ...defined({ width: s.data.width, height: s.data.height }),
        // Static stickers are WebP, video ones WebM, animated ones gzipped Lottie (.tgs).
        mimeType: format === "video" ? "video/webm" : format === "animated" ? "application/x-tgsticker" : "image/webp",
        details: defined({ format, emoji: s.data.emoji, setName: s.data.set_name, type: s.data.type }),
      };
    }
  }
}

function sharedOf(field: keyof typeof shared, value: unknown): SharedContent | null {
  switch (field) {
    case "venue": {
      const v = shared.venue.safeParse(value);
      return v.success
        ? {
            type: "location",
            latitude: v.data.location.latitude,
            longitude: v.data.location.longitude,
            title: v.data.title,
            ...defined({ address: v.data.address }),
          }
        : null;
    }
    case "location": {
      const l = shared.location.safeParse(value);
      return l.success ? { type: "location", latitude: l.data.latitude, longitude: l.data.longitude } : null;
    }
    case "contact": {
      const c = shared.contact.safeParse(value);
      if (!c.success) return null;
      const fullName = [c.data.first_name, c.data.last_name].filter(Boolean).join(" ");
      return { type: "contact", name: fullName, ...defined({ phoneNumber: c.data.phone_number, userId: c.data.user_id?.toString() }) };
    }
    case "poll": {
      const p = shared.poll.safeParse(value);
      return p.success ? { type: "poll", question: p.data.question, options: p.data.options.map((o) => o.text) } : null;
    }
    case "dice": {
      const d = shared.dice.safeParse(value);
      return d.success ? { type: "dice", emoji: d.data.emoji, value: d.data.value } : null;
    }
  }
}

export type TelegramMedia = { attachments: InboundAttachment[]; shared?: SharedContent; mediaGroupId?: string };

/**
 * The attachments and shared content of a message. An animation also carries a
 * `document` (Bot API: "for backward compatibility"), a venue also a `location`:
 * the first of each pair wins.
 */
export function telegramMedia(message: Record<string, unknown>): TelegramMedia {
  const attachments: InboundAttachment[] = [];
  let sharedContent: SharedContent | undefined;
  for (const field of Object.keys(schemas) as (keyof typeof schemas)[]) {
    const value = message[field];
    if (value === undefined) continue;
    if (field === "document" && message.animation !== undefined) continue;
    const attachment = attachmentOf(field, value);
    if (attachment) attachments.push(attachment);
    else sharedContent ??= { type: "other", kind: field };
  }
  for (const field of Object.keys(shared) as (keyof typeof shared)[]) {
    const value = message[field];
    if (value === undefined || sharedContent) continue;
    sharedContent = sharedOf(field, value) ?? { type: "other", kind: field };
  }
  for (const field of OTHER) {
    if (sharedContent || message[field] === undefined) continue;
    const title = (message[field] as { title?: unknown } | null)?.title;
    sharedContent = { type: "other", kind: field, ...(typeof title === "string" ? { title: title.slice(0, 256) } : {}) };
  }
  const group = message.media_group_id;
  return {
    attachments,
    ...(sharedContent ? { shared: sharedContent } : {}),
    ...(typeof group === "string" && group.length > 0 && group.length <= 128 ? { mediaGroupId: group } : {}),
  };
}

/**
 * A media message as a short description for a quote of it (the platform's copy
 * of a replied-to message): `[photo] caption`. Only ever shown inside a quoted,
 * sanitized annotation, where brackets are neutralized.
 */
export function describeForQuote(message: Record<string, unknown>, text: string): string {
  const { attachments, shared: s } = telegramMedia(message);
  const kind = attachments[0]?.kind ?? (s ? (s.type === "other" ? s.kind : s.type) : null);
  if (!kind) return text;
  const marker = `[${kind.replaceAll("_", " ")}]`;
  return text ? `${marker} ${text}` : marker;
}
