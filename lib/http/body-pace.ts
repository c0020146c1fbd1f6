/**
 * The least a request body must carry in each window of time (bytes per second, judged
 * over `windowMs`), like Apache's mod_reqtimeout MinRate: a client that trickles a byte
 * every few seconds keeps an idle timeout at bay, so it is the pace that is judged.
 */
export type MinimumRate = { bytesPerSecond: number; windowMs: number };

/**
 * A body's pace, window by window: `add` counts what arrived; at the window's end
 * (`checkAt`, looked at whether bytes arrive or not) `keepsPace` says whether the window
 * carried its share, and starts the next. A window judged late is judged over its true length.
 *
 * @example const pace = new BodyPace({ bytesPerSecond: 16_384, windowMs: 10_000 }, Date.now());
 */
export class BodyPace {
  private windowStart: number;
  private inWindow = 0;

  constructor(
    private readonly rate: MinimumRate,
    now: number,
  ) {
    this.windowStart = now;
  }

  /** When the current window ends. */
  get checkAt(): number {
    return this.windowStart + this.rate.windowMs;
  }

  add(bytes: number) {
    this.inWindow += bytes;
  }

  /** True before the window's end; at or after it, whether it carried at least the minimum (then the next window starts). */
  keepsPace(now: number): boolean {
    if (now < this.checkAt) return true;
    const kept = this.inWindow * 1000 >= this.rate.bytesPerSecond * (now - this.windowStart);
    this.windowStart = now;
    this.inWindow = 0;
    return kept;
  }
}
