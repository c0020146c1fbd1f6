import { cleanFileName } from "./file-name";
import type { AttachmentStatus, InboundAttachment } from "./types";

/** Telegram's own download limit through the public Bot API; MEDIA_MAX_BYTES changes it. */
export const DEFAULT_MEDIA_MAX_BYTES = 20 * 1024 * 1024;

/** An attachment as ingest stores it: what the parser said, and where its bytes stand. */
export type AttachmentRow = Omit<InboundAttachment, "unsupported"> & { status: AttachmentStatus; error: string | null };

/**
 * What becomes of each attachment a message arrives with, decided before anything
 * is fetched: "too_large" when the platform declares more than `maxBytes` (never
 * fetched, never an error: the model is told), "unsupported" when there is nothing
 * to fetch (a LINE sticker), else "pending" for the fetch job. The sender's file
 * name is kept cleaned (`cleanFileName`), or not at all when nothing is left of it.
 */
export function attachmentRows(attachments: readonly InboundAttachment[], maxBytes: number): AttachmentRow[] {
  return attachments.map(({ unsupported, fileName, ...fields }) => {
    const name = cleanFileName(fileName ?? "");
    const a = name ? { ...fields, fileName: name } : fields;
    if (unsupported) return { ...a, status: "unsupported", error: unsupported };
    if (a.sizeBytes !== undefined && a.sizeBytes > maxBytes) return { ...a, status: "too_large", error: null };
    return { ...a, status: "pending", error: null };
  });
}
