import { recordIdParam } from "../record-id";
import { z } from "zod";
import { defineOperations } from "./operation";
import { replyResponse } from "./messages/schema";

export const mediaQuery = z.object({
  /** `thumb`: a small re-encoded preview (raster images only; 404 for other files). */
  size: z.enum(["original", "thumb"]).default("original"),
});

/**
 * An operator's file (POST /conversations/{id}/media, multipart/form-data). The
 * file itself is read from the form and checked by its bytes (lib/pipeline/operator-media.ts);
 * this is what the document shows and what the other fields are checked with.
 */
export const mediaUploadFields = z.object({
  /** The file (its bytes decide how it is sent: photo, voice, audio, video or document). */
  file: z.string().meta({ format: "binary" }),
  /** Shown under the file (Telegram: at most 1,024 characters). */
  caption: z.string().max(4096).optional(),
  /** Sent as a native reply to this message of the conversation. */
  replyToMessageId: recordIdParam.optional(),
});

export const operations = defineOperations([
  {
    method: "get",
    path: "/media/{id}",
    summary:
      "An attachment's bytes: the type sniffed from them, X-Content-Type-Options: nosniff, inline only for raster images, audio and video (everything else, SVG and HTML included, is a download: Content-Disposition: attachment, application/octet-stream); ?size=thumb for a small preview of an image",
    query: mediaQuery,
    response: {
      status: 200,
      schema: z.string().meta({ format: "binary" }),
      contentType: "application/octet-stream",
      description: "The file",
    },
    errors: { 304: "Not modified (If-None-Match matched the ETag)" },
  },
  {
    method: "post",
    path: "/conversations/{id}/media",
    summary:
      "An operator sends a file (multipart/form-data: file, caption?, replyToMessageId?): stored, attached to the outbound message and sent at most once as a photo, voice note, audio, video or document by its bytes",
    body: mediaUploadFields,
    bodyContentType: "multipart/form-data",
    response: { status: 201, schema: replyResponse },
    errors: {
      400: "Refused, nothing stored: an empty file, bytes that contradict its name or type, a bad image, a caption over 1,024 characters, or a file the chat's platform cannot take (LINE has no file message; LINE media need PUBLIC_URL)",
      408: "The body stopped arriving (no bytes for 30 s) or arrived slower than MEDIA_UPLOAD_MIN_BYTES_PER_SECOND (default 16 KB/s, judged every 10 s): nothing stored or sent, the upload's place is free again",
      413: "The file is larger than MEDIA_MAX_BYTES (default 20 MB); a Content-Length over it is refused before the body is read",
      415: "Not multipart/form-data",
      502: "Not delivered (recorded on the envelope; `details.envelopeId`, and `details.outcome`)",
      503: "The server already handles as many uploads as it takes at once (4; fewer when MEDIA_MAX_BYTES is over 64 MB): nothing read or stored; try again after Retry-After seconds",
    },
  },
]);
