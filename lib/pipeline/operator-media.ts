import { recordIdParam } from "../record-id";
import { z } from "zod";
import { MEDIA_CAPTION_LIMIT } from "../channels/text-limit";
import type { OutboundMediaFacts, OutboundMediaKind } from "../channels/types";
import { findConversation } from "../db/conversations";
import { firstEnvelopeIdOfMessage } from "../db/envelopes";
import { findMessage } from "../db/messages";
import { operatorAddress } from "../envelope/address";
import { AppError, notFound } from "../errors";
import { megabytes, type UploadedFile } from "../http/multipart";
import { blobStoreFor } from "../media/blob-store";
import { inspectBytes } from "../media/inspect";
import { mp4DurationSeconds } from "../media/mp4-duration";
import { signedMediaUrl } from "../media/signed-url";
import { operatorResponse, takeIfWaiting, type OperatorReplyResponse } from "./operator-reply";
import { sendToChat, type SendDeps } from "./send-to-chat";

export const mediaFieldsSchema = z.object({
  caption: z
    .string()
    .trim()
    .max(MEDIA_CAPTION_LIMIT, `a caption holds at most ${MEDIA_CAPTION_LIMIT.toLocaleString("en")} characters`)
    .default(""),
  replyToMessageId: recordIdParam.optional(),
});

export type OperatorMediaInput = {
  conversationId: number;
  operator: string;
  file: UploadedFile;
  fields: z.input<typeof mediaFieldsSchema>;
};

export type MediaDeps = SendDeps & {
  /** MEDIA_MAX_BYTES. */
  maxBytes: number;
  /** PUBLIC_URL (or APP_URL) and the signing key: links for a platform that fetches files itself (LINE). */
  publicUrl?: string;
  mediaUrlSecret: string;
};

/** Telegram's sendPhoto limits: larger or stranger images go as a document (the file as it is). */
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const PHOTO_MAX_SIDES = 10_000;

/** What a name's extension claims the file is: a claim the bytes must back (a "photo.jpg" of garbage is refused). */
const CLAIMS: [RegExp, "image" | "audio" | "video"][] = [
  [/\.(jpe?g|png|gif|webp|heic|bmp|tiff?)$/i, "image"],
  [/\.(mp3|m4a|ogg|oga|opus|wav|flac|aac)$/i, "audio"],
  [/\.(mp4|m4v|mov|webm|mkv|avi)$/i, "video"],
];

function claimedFamily(file: UploadedFile): "image" | "audio" | "video" | null {
  const byName = CLAIMS.find(([pattern]) => pattern.test(file.name))?.[1];
  if (byName) return byName;
  const declared = /^(image|audio|video)\//.exec(file.declaredType)?.[1];
  // SVG declares image/svg+xml: a drawing, sent and served as a file.
  return declared && file.declaredType !== "image/svg+xml" ? (declared as "image" | "audio" | "video") : null;
}

/**
 * How a file goes out, by its bytes: a JPEG or PNG photo (within Telegram's photo
 * limits), an Ogg Opus voice note, other audio, video, else a document. Bytes that
 * contradict the file's name or declared type, an empty file, a truncated image or
 * a decompression bomb are refused with the reason.
 */
export async function decideOutboundMedia(file: UploadedFile, maxBytes: number) {
  const size = file.bytes.byteLength;
  if (size === 0) throw new AppError("bad_request", "the file is empty");
  if (size > maxBytes) throw new AppError("payload_too_large", `the file is larger than the limit of ${megabytes(maxBytes)}`);
  const claim = claimedFamily(file);
  const checkAs = claim === "image" ? "photo" : claim === "audio" ? "audio" : claim === "video" ? "video" : "document";
  const inspected = await inspectBytes(file.bytes, checkAs);
  if (!inspected.ok) throw new AppError("bad_request", `"${file.name}" was not sent: ${inspected.reason}`);
  const { mimeType, family, width, height } = inspected;
  let kind: OutboundMediaKind = "document";
  if (
    family === "image" &&
    /^image\/(jpeg|png)$/.test(mimeType) &&
    size <= PHOTO_MAX_BYTES &&
    (width ?? 0) + (height ?? 0) <= PHOTO_MAX_SIDES
  )
    kind = "photo";
  else if (/^audio\/(opus|ogg)\b/.test(mimeType) && /opus/.test(mimeType)) kind = "voice";
  else if (family === "audio") kind = "audio";
  else if (family === "video") kind = "video";
  const duration = /^(audio|video)\/(mp4|x-m4a|m4a)$/.test(mimeType) ? mp4DurationSeconds(file.bytes) : null;
  return { kind, mimeType, width: width ?? null, height: height ?? null, durationSeconds: duration };
}

/**
 * An operator's file from the composer: checked by its bytes and against what the
 * chat's platform takes (before anything is stored), stored once by content, then
 * sent at most once like every send (`sendToChat`: the envelope first, the file by
 * the adapter's `sendMedia`, the message with its attachment after), as a plain
 * message or a native reply to `replyToMessageId`.
 */
/**
 * 404 for an unknown conversation before the upload takes a place: its body would
 * otherwise hold one of the few upload places while it arrives, only to be refused
 * after. `sendOperatorMedia` looks again (the conversation may go meanwhile).
 */
export async function refuseUnknownMediaTarget(deps: Pick<MediaDeps, "db">, conversationId: number): Promise<void> {
  if (!(await findConversation(deps.db, conversationId))) throw notFound("conversation");
}

export async function sendOperatorMedia(deps: MediaDeps, input: OperatorMediaInput): Promise<OperatorReplyResponse> {
  const fields = mediaFieldsSchema.safeParse(input.fields);
  if (!fields.success) throw new AppError("bad_request", "invalid form fields", fields.error.issues);
  const { caption, replyToMessageId } = fields.data;
  const conversation = await findConversation(deps.db, input.conversationId);
  if (!conversation) throw notFound("conversation");
  const replyTo = replyToMessageId ? await findMessage(deps.db, replyToMessageId) : null;
  if (replyToMessageId && (!replyTo || replyTo.conversationId !== conversation.id))
    throw new AppError("bad_request", `message ${replyToMessageId} is not in this conversation`);

  const decided = await decideOutboundMedia(input.file, deps.maxBytes);
  const channel = deps.channels[conversation.channel];
  if (!channel?.sendMedia) throw new AppError("bad_request", `the ${conversation.channel} channel cannot send files`);
  const facts: OutboundMediaFacts = {
    kind: decided.kind,
    mimeType: decided.mimeType,
    sizeBytes: input.file.bytes.byteLength,
    ...(decided.durationSeconds ? { durationSeconds: decided.durationSeconds } : {}),
    hasLinks: Boolean(deps.publicUrl),
  };
  const refusal = channel.mediaRefusal?.(facts);
  if (refusal) throw new AppError("bad_request", `not sent: ${refusal}`);

  const blobs = blobStoreFor(deps.db);
  const { sha256 } = await blobs.put(input.file.bytes, decided.mimeType);
  const links = deps.publicUrl
    ? {
        original: signedMediaUrl(deps.publicUrl, deps.mediaUrlSecret, sha256, "original"),
        preview: signedMediaUrl(deps.publicUrl, deps.mediaUrlSecret, sha256, "preview"),
      }
    : undefined;
  const result = await sendToChat(deps, {
    from: operatorAddress(input.operator),
    senderKind: "operator",
    senderName: input.operator,
    conversation,
    text: caption,
    replyTo,
    replyToEnvelopeId: replyTo ? await firstEnvelopeIdOfMessage(deps.db, replyTo.id) : null,
    forkId: replyTo ? replyTo.forkId : conversation.activeForkId,
    media: {
      send: { ...facts, bytes: input.file.bytes, fileName: input.file.name, ...(links ? { links } : {}) },
      attachment: {
        kind: decided.kind,
        mimeType: decided.mimeType,
        fileName: input.file.name,
        sizeBytes: input.file.bytes.byteLength,
        width: decided.width,
        height: decided.height,
        durationSeconds: decided.durationSeconds === null ? null : Math.round(decided.durationSeconds),
        blobSha256: sha256,
      },
    },
  });
  // Refused outright, the message keeps its record of the file; bytes nothing refers to are
  // left to the hourly orphan sweep (lib/media/retention.ts), never removed here: the same
  // bytes may be on their way into another message at this moment.
  await takeIfWaiting(deps, conversation, input.operator, result);
  return operatorResponse(result, input.operator);
}
