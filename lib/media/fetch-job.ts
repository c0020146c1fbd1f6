import { AsyncResource } from "node:async_hooks";
import { claimAttachments, finishAttachment, nextAttemptDue, type AttachmentOutcome, type ClaimedAttachment } from "../db/attachments";
import type { Database } from "../db/database";
import { log, scrub } from "../log";
import { blobStoreFor } from "./blob-store";
import { downloadBytes } from "./fetch-http";
import { inspectBytes } from "./inspect";
import { ATTACHMENT_KINDS, type AttachmentKind, type MediaDownload, type MediaDownloadRequest } from "./types";

/** How one claimed download ended, for metrics: a status it ends in, or `retry` (pending again, later). */
export type FetchOutcome = "stored" | "too_large" | "failed" | "unsupported" | "retry";

/** What downloads a platform's files: its channel adapter (lib/channels/types.ts `ChannelAdapter` is one). */
export type MediaDownloader = {
  readonly mode: "live" | "sandbox";
  downloadMedia?(request: MediaDownloadRequest): Promise<MediaDownload>;
};

export type MediaFetcherDeps = {
  db: Database;
  /** The adapter that downloads a platform's files (by Attachment.source: "telegram", "line"); undefined when none. */
  adapterFor: (attachment: ClaimedAttachment) => MediaDownloader | undefined;
  /** MEDIA_MAX_BYTES: larger files are too_large, never read past this. */
  maxBytes: number;
  /** One download's time, request to last byte. */
  timeoutMs: number;
  /** The signal that ends a download at its deadline (default `AbortSignal.timeout(timeoutMs)`); tests end it when they choose. */
  deadline?: (timeoutMs: number) => AbortSignal;
  /** MEDIA_ALLOW_INSECURE_URLS: external URLs may be http and private (tests on loopback). */
  allowInsecureUrls?: boolean;
  /** Attempts before a download that keeps failing is failed for good (default 5). */
  maxAttempts?: number;
  /** The wait before attempt n+1 after n attempts failed (default 5 s, ×4 each time, at most 10 min). */
  backoffMs?: (attempts: number) => number;
  /** Downloads at once in this instance (default 4): a hanging one never holds the others. */
  concurrency?: number;
  /** Each download's outcome and duration (metrics). */
  observe?: (source: string, outcome: FetchOutcome, seconds: number) => void;
  now?: () => Date;
};

const DEFAULT_ATTEMPTS = 5;
const defaultBackoff = (attempts: number) => Math.min(5_000 * 4 ** (attempts - 1), 10 * 60_000);
/** Beyond the download's own timeout, before a claim may be taken over (inspecting and storing take time too). */
const LEASE_MARGIN_MS = 30_000;
/** How long wakes gather before a claim. */
const WAKE_COALESCE_MS = 20;
/** The longest sleep when nothing is due: the worker's housekeeping tick also wakes the job. */
const MAX_SLEEP_MS = 60_000;

/**
 * The background job that fetches media off the webhook's acknowledgement path: it
 * claims pending Attachment rows (lib/db/attachments.ts; safe across instances),
 * downloads each through its channel adapter or, for an external provider's URL,
 * directly (https only, no private addresses), under MEDIA_MAX_BYTES and a timeout,
 * checks the bytes (lib/media/inspect.ts: sniffed type against the kind, pixel
 * limit, truncation), and stores them content-addressed (lib/media/blob-store.ts).
 * A download that may work later (a 5xx, the network, a timeout, LINE still
 * preparing a video) is retried with backoff, then failed with the reason.
 * Woken after an ingest that stored attachments and on the worker's tick;
 * otherwise it sleeps until the next retry is due.
 */
export class MediaFetcher {
  private readonly running = new Set<Promise<void>>();
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Drains run in the context the job was made in, not in the webhook request's that woke it. */
  private readonly scope = new AsyncResource("MediaFetcher");

  constructor(private readonly deps: MediaFetcherDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  start() {
    this.stopped = false;
    this.kick();
  }

  /** Stops claiming and waits for the downloads under way (each bounded by its timeout). */
  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    await Promise.allSettled([this.draining, ...this.running]);
  }

  /**
   * Something may be due now (an ingest stored attachments, the worker's tick, a
   * download ended): drain in a moment. Wakes that come together (a burst of photos,
   * an album) share one claim, so the job's queries do not crowd the webhooks' on
   * the database.
   */
  wake() {
    this.wakeAt(this.now().getTime() + WAKE_COALESCE_MS);
  }

  private kick() {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.scope
      .runInAsyncScope(() => this.drain())
      .catch((error) => {
        log.error("media.drain_failed", { error });
        this.wakeAt(this.now().getTime() + 5_000);
      })
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Resolves once nothing is downloading and no pending download falls due within
   * `horizonMs` (tests: retries with a short backoff included).
   */
  async idle(horizonMs = 0) {
    for (;;) {
      await Promise.allSettled([this.draining, ...this.running]);
      if (this.draining || this.running.size > 0 || this.again) continue;
      const due = await nextAttemptDue(this.deps.db);
      // A drain that began during that read may have claimed what it would have found.
      if (this.draining || this.running.size > 0 || this.again) continue;
      const wait = due ? due.getTime() - this.now().getTime() : Number.POSITIVE_INFINITY;
      if (wait > horizonMs) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 5)));
      this.wake();
    }
  }

  private async drain() {
    const free = (this.deps.concurrency ?? 4) - this.running.size;
    if (free > 0) {
      const claimed = await claimAttachments(this.deps.db, {
        now: this.now(),
        leaseMs: this.deps.timeoutMs + LEASE_MARGIN_MS,
        take: free,
      });
      for (const attachment of claimed) {
        const task: Promise<void> = this.fetchOne(attachment).finally(() => {
          this.running.delete(task);
          this.wake();
        });
        this.running.add(task);
      }
      // Every slot taken: a finished download wakes the job again.
      if (claimed.length === free) return;
    }
    const due = await nextAttemptDue(this.deps.db);
    this.wakeAt(due ? due.getTime() : Number.POSITIVE_INFINITY);
  }

  /** Drains at `at` (at most a minute ahead), unless a drain is already set for sooner. */
  private wakeAt(at: number) {
    if (this.stopped) return;
    const when = Math.min(at, this.now().getTime() + MAX_SLEEP_MS);
    if (this.timer && this.timerAt <= when) return;
    clearTimeout(this.timer);
    this.timerAt = when;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.kick();
      },
      Math.max(when - this.now().getTime(), 0),
    );
    this.timer.unref?.();
  }

  private async fetchOne(attachment: ClaimedAttachment) {
    const started = performance.now();
    let outcome: AttachmentOutcome;
    try {
      outcome = await this.attempt(attachment);
    } catch (error) {
      // Our own failure (the database, the blob store): the download is tried again later.
      log.error("media.fetch_error", { attachmentId: attachment.id, error });
      outcome = this.retryOrFail(attachment, "the server could not store the file");
    }
    // The reason is stored and shown to operators: a file host that echoes its URL (`/file/bot<token>/…`) must not put a token there.
    if ("error" in outcome) outcome = { ...outcome, error: scrub(outcome.error) };
    try {
      const recorded = await finishAttachment(this.deps.db, attachment, outcome);
      // Taken over after a lease ran out, or its conversation was deleted meanwhile: bytes nothing
      // refers to are left to the hourly orphan sweep (the same file may be going into another message).
      if (!recorded && outcome.status === "stored") log.info("media.fetch_unrecorded", { attachmentId: attachment.id });
    } catch (error) {
      // The claim's lease runs out and another attempt records it.
      log.error("media.finish_failed", { attachmentId: attachment.id, error });
    }
    const label: FetchOutcome = outcome.status === "pending" ? "retry" : outcome.status;
    this.deps.observe?.(attachment.source, label, (performance.now() - started) / 1000);
    const level = label === "stored" ? "debug" : label === "retry" || label === "too_large" ? "info" : "warn";
    log[level]("media.fetched", {
      attachmentId: attachment.id,
      source: attachment.source,
      kind: attachment.kind,
      outcome: label,
      attempt: attachment.attempts,
      ...("error" in outcome ? { reason: outcome.error } : {}),
    });
  }

  private async attempt(attachment: ClaimedAttachment): Promise<AttachmentOutcome> {
    const { maxBytes } = this.deps;
    if (attachment.sizeBytes !== null && attachment.sizeBytes > maxBytes) return { status: "too_large", sizeBytes: attachment.sizeBytes };
    if (!ATTACHMENT_KINDS.includes(attachment.kind as AttachmentKind))
      return { status: "failed", error: `unknown kind ${attachment.kind}` };
    if (!attachment.sourceRef) return { status: "failed", error: "nothing to download: the platform gave no file reference" };
    const signal = this.deps.deadline ? this.deps.deadline(this.deps.timeoutMs) : AbortSignal.timeout(this.deps.timeoutMs);
    let download: MediaDownload;
    if (attachment.source === "url") {
      download = await downloadBytes(attachment.sourceRef, {
        maxBytes,
        signal,
        untrusted: true,
        allowInsecure: this.deps.allowInsecureUrls,
        label: "the file's host",
      });
    } else {
      const adapter = this.deps.adapterFor(attachment);
      if (!adapter?.downloadMedia) return { status: "unsupported", error: unsupportedReason(attachment.source, adapter) };
      download = await adapter.downloadMedia({ sourceRef: attachment.sourceRef, declaredSize: attachment.sizeBytes, maxBytes, signal });
    }
    if (!download.ok) {
      if (download.outcome === "too_large") return { status: "too_large", sizeBytes: download.sizeBytes };
      if (download.outcome === "failed") return { status: "failed", error: download.reason };
      if (download.outcome === "unsupported") return { status: "unsupported", error: download.reason };
      return this.retryOrFail(attachment, download.reason);
    }
    const inspected = await inspectBytes(download.bytes, attachment.kind as AttachmentKind);
    if (!inspected.ok) return { status: "failed", error: inspected.reason };
    const stored = await blobStoreFor(this.deps.db).put(download.bytes, inspected.mimeType);
    return {
      status: "stored",
      blobSha256: stored.sha256,
      mimeType: inspected.mimeType,
      sizeBytes: stored.sizeBytes,
      width: inspected.width ?? null,
      height: inspected.height ?? null,
    };
  }

  private retryOrFail(attachment: ClaimedAttachment, reason: string): AttachmentOutcome {
    const limit = this.deps.maxAttempts ?? DEFAULT_ATTEMPTS;
    if (attachment.attempts >= limit) return { status: "failed", error: `${reason} (gave up after ${attachment.attempts} attempts)` };
    const wait = (this.deps.backoffMs ?? defaultBackoff)(attachment.attempts);
    return {
      status: "pending",
      error: `attempt ${attachment.attempts} failed: ${reason}`,
      nextAttemptAt: new Date(this.now().getTime() + wait),
    };
  }
}

function unsupportedReason(source: string, adapter: MediaDownloader | undefined): string {
  if (source === "telegram" && adapter?.mode === "sandbox")
    return "the Telegram sandbox has no bot token to download files with (set TELEGRAM_BOT_TOKEN, or TELEGRAM_API_ROOT to a Bot API that serves them)";
  if (source === "telegram" || source === "line")
    return `the ${source === "line" ? "LINE" : "Telegram"} adapter is off: the file cannot be fetched`;
  return `nothing downloads files of source "${source}"`;
}
