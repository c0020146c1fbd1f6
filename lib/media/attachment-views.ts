import { z } from "zod";
import type { Database } from "../db/database";
import { cleanFileName } from "./file-name";
import { ATTACHMENT_KINDS, type AttachmentKind, type AttachmentStatus, type AttachmentView } from "./types";

/** The API shape of one attachment (docs/API.md): every message view carries a list of these. */
export const attachmentView = z.strictObject({
  id: z.number().int(),
  kind: z.enum(ATTACHMENT_KINDS),
  /** Sniffed from the stored bytes; before they are here, the platform's declared type (a hint only). */
  mimeType: z.string().nullable(),
  fileName: z.string().nullable(),
  sizeBytes: z.number().int().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  durationSeconds: z.number().int().nullable(),
  status: z.enum(["pending", "stored", "too_large", "failed", "unsupported"]),
  /** Why it failed or is unsupported, for the operator. */
  error: z.string().nullable(),
  /** `/api/v1/media/{id}` once the bytes are stored, else null. */
  url: z.string().nullable(),
  /** Speech to text of a voice note, audio or video note, once transcribed. */
  transcript: z.string().nullable(),
});

/** Where an attachment's bytes are served (GET /api/v1/media/{id}). */
export const mediaUrl = (id: number) => `/api/v1/media/${id}`;

/**
 * The attachments of a page of messages, in one query (never one per message):
 * message id → its attachments in order. Messages without any are absent.
 */
export async function attachmentViewsOf(db: Database, messageIds: readonly number[]): Promise<Map<number, AttachmentView[]>> {
  const byMessage = new Map<number, AttachmentView[]>();
  const ids = [...new Set(messageIds)].filter((id) => id > 0);
  if (ids.length === 0) return byMessage;
  const rows = await db.prisma.attachment.findMany({
    where: { messageId: { in: ids } },
    orderBy: [{ messageId: "asc" }, { position: "asc" }, { id: "asc" }],
    select: {
      id: true,
      messageId: true,
      kind: true,
      mimeType: true,
      fileName: true,
      sizeBytes: true,
      width: true,
      height: true,
      durationSeconds: true,
      status: true,
      error: true,
      blobSha256: true,
      transcript: true,
    },
  });
  for (const { messageId, blobSha256, ...row } of rows) {
    const status = row.status as AttachmentStatus;
    const view: AttachmentView = {
      ...row,
      // Cleaned as at intake (null when nothing is left), so names stored before it was done show the same.
      fileName: (row.fileName && cleanFileName(row.fileName)) || null,
      kind: row.kind as AttachmentKind,
      status,
      url: status === "stored" && blobSha256 ? mediaUrl(row.id) : null,
    };
    const list = byMessage.get(messageId);
    if (list) list.push(view);
    else byMessage.set(messageId, [view]);
  }
  return byMessage;
}

/** Gives each message of a page its `attachments` (one query for the page). */
export async function withAttachments<M extends { id: number }>(
  db: Database,
  messages: M[],
): Promise<(M & { attachments: AttachmentView[] })[]> {
  const views = await attachmentViewsOf(
    db,
    messages.map((m) => m.id),
  );
  return messages.map((m) => ({ ...m, attachments: views.get(m.id) ?? [] }));
}
