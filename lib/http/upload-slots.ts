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
 * hold every place until Node's 300 s request timeout. Null: no minimum. One holder
 * (an operator, or the API token) keeps at most half the places (at least one): a few
 * uploads sent just above the minimum rate by one account cannot hold every place
 * for the quarter hour a large file then takes.
 *
 * @example await slots.run(async () => send(await read(request)))
 */
export class UploadSlots {
  readonly limit: number;
  readonly minRate: MinimumRate | null;
  /** The most places one holder keeps at once. */
  readonly perHolder: number;
  private running = 0;
  private readonly byHolder = new Map<string, number>();

  constructor(maxFileBytes: number, minRate: MinimumRate | null = null, options: { perHolder?: number } = {}) {
    this.limit = Math.max(1, Math.min(MAX_UPLOADS, Math.floor(MEMORY_BUDGET_BYTES / maxFileBytes)));
    this.minRate = minRate && minRate.bytesPerSecond > 0 ? minRate : null;
    this.perHolder = options.perHolder ?? Math.max(1, Math.ceil(this.limit / 2));
  }

  /** Uploads being handled now. */
  get inUse(): number {
    return this.running;
  }

  /** Runs `work` in a slot, given back however it ends; throws `unavailable` (503) when none is free, or `holder` has its share. */
  async run<T>(work: () => Promise<T>, holder = ""): Promise<T> {
    const held = this.byHolder.get(holder) ?? 0;
    if (this.running >= this.limit)
      throw new AppError(
        "unavailable",
        `the server is handling its maximum of ${this.limit} uploads at once; try again in a few seconds`,
        undefined,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    if (held >= this.perHolder)
      throw new AppError(
        "unavailable",
        `you are already sending ${held} file${held === 1 ? "" : "s"}, as many as one account sends at once; try again when ${held === 1 ? "it is" : "they are"} done`,
        undefined,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    this.running++;
    this.byHolder.set(holder, held + 1);
    try {
      return await work();
    } finally {
      this.running--;
      const left = (this.byHolder.get(holder) ?? 1) - 1;
      if (left > 0) this.byHolder.set(holder, left);
      else this.byHolder.delete(holder);
    }
  }
}
