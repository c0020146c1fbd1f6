/**
 * How many calls one provider and model may have in flight, found the way TCP
 * finds its window: grow while calls go through, back off at the first sign of
 * congestion. The operator's setting (or LLM_CONCURRENCY) is the ceiling, not
 * the operating point. Pure: the caller reports events and reads the limit.
 *
 * - **Slow start** (from the start, and again after `SLOW_START_AFTER_MS` without
 *   congestion): every call the provider accepts adds two slots, so the limit
 *   triples every admission window while calls wait for one. A call counts as
 *   accepted once it has run `ADMISSION_MS` without an error: a provider that is
 *   over its limit answers 429 at once, long before an answer comes.
 * - **Additive increase** (after a back-off): a tenth of the limit, at most
 *   `ADDITIVE_STEP` slots, per round of successful calls at the current limit
 *   (16 per round from 160 up), while latency stays near its baseline.
 * - **Multiplicative decrease**: a 429 or a 503/529 sets the limit to 90% of the
 *   calls the provider was holding when it refused (at most a cut to a quarter);
 *   a timeout halves it, a latency jump takes a quarter off. Once per round:
 *   signals from calls sent before the last cut were sent under the old limit
 *   and say nothing new. Retry-After is the gate's (lib/agent/call-limits.ts).
 *
 * It grows only while the limit is what holds calls back (calls waiting, or all
 * slots taken): a quiet provider's limit never climbs untested to the ceiling.
 */

/** Where the limit starts: the old fixed default, so no start is slower than before. */
export const START_LIMIT = 50;
/** A call running this long without an error was accepted by the provider. */
export const ADMISSION_MS = 250;
/** Slots each accepted call adds in slow start. */
const SLOW_START_GAIN = 2;
/** Slots added per round of successful calls after a back-off, at most (a tenth of the limit below 160). */
export const ADDITIVE_STEP = 16;
/** After this long without congestion, growth is fast again (the provider's capacity may have grown). */
export const SLOW_START_AFTER_MS = 5 * 60_000;
/**
 * A refusal (429, 503/529) sets the limit to this share of the calls the provider was
 * holding when it refused one (its capacity, measured), never below a quarter of the limit.
 */
const HELD_SHARE = 0.9;
/** Latency: the baseline follows about the last 100 successful calls, the recent figure the last 10. */
const BASELINE_WEIGHT = 0.01;
const RECENT_WEIGHT = 0.1;
/** Samples before latency is judged at all. */
const LATENCY_SAMPLES = 20;
/** Recent latency above this multiple of the baseline is congestion; above GROWTH_LATENCY the limit holds. */
const SLOW_LATENCY = 3;
const GROWTH_LATENCY = 1.5;

/** Why the limit last moved. */
export type LimitReason = "start" | "ceiling" | "accepted" | "succeeded" | Congestion;
/** The provider's signs of congestion. */
export type Congestion = "rate_limited" | "overloaded" | "timeout" | "slow";

export type LimitChange = { at: Date; from: number; to: number; reason: LimitReason; detail: string };

/** One call as the limiter knows it: when it started. */
export type CallTicket = { startedAt: number; accepted: boolean };

export type LimitState = {
  limit: number;
  ceiling: number;
  /** "slow_start" grows fast, "additive" slowly after a back-off. */
  phase: "slow_start" | "additive";
  /** The last time the limit moved, and why. */
  lastChange: LimitChange;
  /** The last back-off (null when none yet): the reason the limit is below its ceiling. */
  lastBackoff: LimitChange | null;
  /** Recent and baseline latency of successful calls, ms (null before the first). */
  latencyMs: { recent: number; baseline: number } | null;
};

export class AdaptiveLimit {
  private limitValue: number;
  private ceilingValue: number;
  private lastCutAt = Number.NEGATIVE_INFINITY;
  private growth = 0;
  private samples = 0;
  private baseline = 0;
  private recent = 0;
  private lastChange: LimitChange;
  private lastBackoff: LimitChange | null = null;

  constructor(
    ceiling: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.ceilingValue = Math.max(1, ceiling);
    this.limitValue = Math.min(START_LIMIT, this.ceilingValue);
    this.lastChange = { at: new Date(clock()), from: this.limitValue, to: this.limitValue, reason: "start", detail: "starting value" };
  }

  get limit() {
    return this.limitValue;
  }

  state(): LimitState {
    return {
      limit: this.limitValue,
      ceiling: this.ceilingValue,
      phase: this.inSlowStart() ? "slow_start" : "additive",
      lastChange: this.lastChange,
      lastBackoff: this.lastBackoff,
      latencyMs: this.samples > 0 ? { recent: Math.round(this.recent), baseline: Math.round(this.baseline) } : null,
    };
  }

  /** The operator's ceiling (settings page, else LLM_CONCURRENCY): applies at once, also downwards. */
  setCeiling(ceiling: number) {
    const next = Math.max(1, ceiling);
    if (next === this.ceilingValue) return;
    this.ceilingValue = next;
    if (this.limitValue > next) this.move(next, "ceiling", `ceiling lowered to ${next}`);
  }

  /** A call starts now. */
  start(): CallTicket {
    return { startedAt: this.clock(), accepted: false };
  }

  /**
   * The call has run ADMISSION_MS without an error (or answered sooner). `saturated`:
   * calls are waiting for a slot or every slot is taken, so the limit is what holds them back.
   */
  accepted(ticket: CallTicket, saturated: boolean) {
    if (ticket.accepted) return;
    ticket.accepted = true;
    if (saturated && this.inSlowStart() && ticket.startedAt >= this.lastCutAt)
      this.grow(SLOW_START_GAIN, "accepted", "calls accepted by the provider");
  }

  /** The call answered. */
  succeeded(ticket: CallTicket, saturated: boolean) {
    const latency = this.clock() - ticket.startedAt;
    this.accepted(ticket, saturated);
    if (ticket.startedAt < this.lastCutAt) return;
    this.samples += 1;
    this.baseline = this.samples === 1 ? latency : this.baseline + BASELINE_WEIGHT * (latency - this.baseline);
    this.recent = this.samples === 1 ? latency : this.recent + RECENT_WEIGHT * (latency - this.recent);
    if (this.samples >= LATENCY_SAMPLES && this.recent > SLOW_LATENCY * this.baseline) {
      this.congested(ticket, "slow", 0, `latency ${seconds(this.recent)} against a baseline of ${seconds(this.baseline)}`);
      return;
    }
    if (!saturated || this.inSlowStart()) return;
    if (this.samples >= LATENCY_SAMPLES && this.recent > GROWTH_LATENCY * this.baseline) return;
    this.growth += Math.min(ADDITIVE_STEP, Math.max(1, this.limitValue / 10)) / this.limitValue;
    if (this.growth >= 1) {
      const step = Math.floor(this.growth);
      this.growth -= step;
      this.grow(step, "succeeded", "calls succeeding at their usual latency");
    }
  }

  /**
   * The provider refused or failed the call in a way that means "too much": a rate limit,
   * an overload, a timeout. `heldBefore`: calls started before this one and still running
   * (the provider was holding them when it refused this one). Returns whether the limit was cut.
   */
  congested(ticket: CallTicket, kind: Congestion, heldBefore: number, detail: string): boolean {
    if (ticket.startedAt < this.lastCutAt) return false;
    const now = this.clock();
    const next =
      kind === "rate_limited" || kind === "overloaded"
        ? Math.max(Math.floor(this.limitValue / 4), Math.floor(heldBefore * HELD_SHARE))
        : kind === "timeout"
          ? Math.floor(this.limitValue / 2)
          : Math.floor(this.limitValue * 0.75);
    this.lastCutAt = now;
    this.growth = 0;
    // A latency jump is judged afresh on calls sent under the new limit.
    if (kind === "slow") this.recent = this.baseline;
    const to = Math.max(1, Math.min(this.limitValue, next));
    this.move(to, kind, detail);
    this.lastBackoff = this.lastChange;
    return true;
  }

  private inSlowStart() {
    return this.clock() - this.lastCutAt >= SLOW_START_AFTER_MS;
  }

  private grow(by: number, reason: LimitReason, detail: string) {
    const next = Math.min(this.ceilingValue, this.limitValue + by);
    if (next === this.limitValue) return;
    // Growth moves the limit often: only its start is a new "last change" worth showing.
    if (this.lastChange.reason === reason && this.lastChange.to === this.limitValue) {
      this.limitValue = next;
      this.lastChange = { ...this.lastChange, to: next };
      return;
    }
    this.move(next, reason, detail);
  }

  private move(to: number, reason: LimitReason, detail: string) {
    this.lastChange = { at: new Date(this.clock()), from: this.limitValue, to, reason, detail };
    this.limitValue = to;
  }
}

function seconds(ms: number) {
  return `${(ms / 1000).toFixed(1)} s`;
}
