/** What a message can carry as a file (Attachment.kind). */
export const ATTACHMENT_KINDS = ["photo", "video", "animation", "audio", "voice", "video_note", "document", "sticker"] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

/** Attachment.status: where the bytes are. */
export type AttachmentStatus = "pending" | "stored" | "too_large" | "failed" | "unsupported";

/** Attachment.source: where the bytes come from. */
export type AttachmentSource = "telegram" | "line" | "url" | "upload";

/** One attachment as the API shows it on a message (docs/API.md). */
export type AttachmentView = {
  id: number;
  kind: AttachmentKind;
  mimeType: string | null;
  fileName: string | null;
  sizeBytes: number | null;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  status: AttachmentStatus;
  /** Why it failed or is unsupported. */
  error: string | null;
  /** `/api/v1/media/{id}` once stored, else null. */
  url: string | null;
  transcript: string | null;
};

/**
 * An attachment as a channel's parser describes it, before anything is stored
 * (the webhook path records these with the message; the fetch job downloads later).
 */
export type InboundAttachment = {
  kind: AttachmentKind;
  source: AttachmentSource;
  /** Telegram file_id, LINE message id, or the external URL. */
  sourceRef: string;
  platformFileUniqueId?: string;
  mimeType?: string;
  fileName?: string;
  sizeBytes?: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
  details?: Record<string, unknown>;
  /**
   * Set when nothing can be fetched (a LINE sticker has no content endpoint): the
   * attachment is recorded "unsupported" with this reason, never downloaded.
   */
  unsupported?: string;
};

/** What a message shares that is not a file (Message.shared). */
export type SharedContent =
  | { type: "location"; latitude: number; longitude: number; title?: string; address?: string }
  | { type: "contact"; name: string; phoneNumber?: string; userId?: string }
  | { type: "poll"; question: string; options: string[] }
  | { type: "dice"; emoji: string; value: number }
  /** Something the platform sent that the product does not show (a story, a game, an invoice…): named, never dropped silently. */
  | { type: "other"; kind: string; title?: string };

/** One file to download (lib/media/fetch-job.ts asks; the adapter knows the platform). */
export type MediaDownloadRequest = {
  sourceRef: string;
  /** The platform's declared size, when it said one: over `maxBytes` is too large without a request. */
  declaredSize?: number | null;
  maxBytes: number;
  /** Aborted when the download's time is up. */
  signal: AbortSignal;
};

/**
 * What a download gave: the bytes; `too_large` (declared, announced or read past the
 * limit, with the size known so far); `retry` (a 5xx, the network, a timeout, LINE still
 * preparing a video): a later attempt may work; `failed`: it never will (a 4xx, the
 * file is gone).
 */
export type MediaDownload =
  | { ok: true; bytes: Buffer }
  | { ok: false; outcome: "too_large"; sizeBytes: number | null }
  | { ok: false; outcome: "retry" | "failed"; reason: string }
  /** Nothing here can download this file (the sandbox, for a file no simulator sent). */
  | { ok: false; outcome: "unsupported"; reason: string };
