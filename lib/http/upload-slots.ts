import { AppError } from "../errors";
import type { MinimumRate } from "./body-pace";

/** About what the uploads handled at once may hold in memory together. */
const MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;
/** At most this many at once, however small MEDIA_MAX_BYTES is: an operator sends a file now and then. */
const MAX_UPLOADS = 4;
/** What a refused upload is told to wait: about one upload's read and send. */
const RETRY_AFTER_SECONDS = 5;
/** The window over which an upload's pace is judged. */
export const UPLOAD_PACE_WINDOW_MS = 10_000;

/**
 * The operator uploads this process handles at once. An upload holds its file in
 * memory from its first byte read until it is sent (read whole, checked, stored,
 * sent), up to MEDIA_MAX_BYTES each, so a few dozen at once could hold a gigabyte.
 * At most 4 run, fewer when MEDIA_MAX_BYTES is so large that 4 would pass 256 MB (at
 * least 1). One past them is refused at once, before its body is read: a 503 with
 * Retry-After that changes nothing. A place is kept only while the body arrives at
 * `minRate` at least (MEDIA_UPLOAD_MIN_BYTES_PER_SECOND, judged every 10 s): a slower
 * one is a 408 and frees it, so a few clients sending a byte every few seconds cannot
 * hold every place until Node's 300 s request timeout. Null: no minimum.
 *
 * @example await slots.run(async () => send(await read(request)))
 */
export class UploadSlots {
  readonly limit: number;
  readonly minRate: MinimumRate | null;
  private running = 0;

  constructor(maxFileBytes: number, minRate: MinimumRate | null = null) {
    this.limit = Math.max(1, Math.min(MAX_UPLOADS, Math.floor(MEMORY_BUDGET_BYTES / maxFileBytes)));
    this.minRate = minRate && minRate.bytesPerSecond > 0 ? minRate : null;
  }

  /** Uploads being handled now. */
  get inUse(): number {
    return this.running;
  }

  /** Runs `work` in a slot, given back however it ends; throws `unavailable` (503) when none is free. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit)
      throw new AppError(
        "unavailable",
        `the server is handling its maximum of ${this.limit} uploads at once; try again in a few seconds`,
        undefined,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
    }
  }
}
