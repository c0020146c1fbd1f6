import { APICallError, wrapLanguageModel, type LanguageModel } from "ai";
import { log } from "../log";
import { ADMISSION_MS, AdaptiveLimit, type CallTicket, type Congestion } from "./adaptive-limit";
import type { ModelHandle } from "./model";

/**
 * The provider asked us to slow down (HTTP 429, 503/529 with Retry-After, or a
 * rate-limit error inside its stream): its calls are paused until `until`. Not the
 * envelope's fault, so the worker puts the turn back for then without counting an attempt.
 */
export class RateLimitedError extends Error {
  constructor(
    readonly provider: string,
    readonly until: Date,
  ) {
    super(`rate limited by ${provider} until ${until.toISOString()}`);
    this.name = "RateLimitedError";
  }
}

/**
 * A provider that has refused every call (429, or 503/529 with Retry-After) for this
 * long is refusing for good as far as a waiting user is concerned (a proxy's own
 * quota, a key locked out): its turns stop waiting and fail where the operator looks.
 */
export const REFUSING_FOR_GOOD_MS = 60 * 60_000;
/**
 * A refusal counts toward that hour only if calls were being made: one that comes
 * longer than this after the last pause ended starts a new streak (a quiet night
 * after one refused call is not an hour of refusals).
 */
const STREAK_GAP_MS = 60_000;

/**
 * Thrown instead of RateLimitedError once the provider has refused every call for
 * REFUSING_FOR_GOOD_MS: an ordinary failure (attempts counted, then the turn fails
 * with this message; an operator's Retry runs it again). The gate still pauses
 * between calls, so a refusing provider is asked once per pause, not once per turn.
 */
export class ProviderRefusingError extends Error {
  constructor(
    readonly provider: string,
    readonly since: Date,
    readonly lastRefusal: string,
    waitedMs = REFUSING_FOR_GOOD_MS,
  ) {
    const limit = waitedMs >= 60_000 ? `${Math.round(waitedMs / 60_000)} minutes` : `${Math.round(waitedMs / 1000)} s`;
    super(
      `${provider} has refused every call since ${since.toISOString()} (${lastRefusal}); after ${limit} of refusals turns no longer wait for it: retry this one once the provider accepts calls`,
    );
    this.name = "ProviderRefusingError";
  }
}

/** Without a Retry-After header, a 429 pauses the provider this long. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 5_000;
/** A longer Retry-After (a spent daily quota) is capped: the turn is tried again then. */
const MAX_PAUSE_MS = 60 * 60_000;

/**
 * How long a failed call asks us to wait, or null when it is not a rate limit.
 * Reads `retry-after-ms` (OpenAI) and `retry-after` (seconds or an HTTP date),
 * the headers the AI SDK's own retry honours, else Google's `retryDelay` in the body.
 */
export function rateLimitDelayMs(error: unknown, now = Date.now()): number | null {
  // A rate limit inside a stream comes with no headers: the default pause, as a bare 429.
  if (!APICallError.isInstance(error)) return streamedRefusal(error)?.kind === "rate_limited" ? DEFAULT_RATE_LIMIT_PAUSE_MS : null;
  const headers = Object.fromEntries(Object.entries(error.responseHeaders ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let ms: number | undefined;
  const afterMs = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(afterMs)) ms = afterMs;
  const after = headers["retry-after"];
  if (ms === undefined && after) {
    const seconds = Number(after.trim());
    ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
  }
  ms ??= googleRetryDelayMs(error);
  const status = error.statusCode;
  if (spentQuota(error)) return null;
  const limited = status === 429 || ((status === 503 || status === 529) && ms !== undefined);
  if (!limited) return null;
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) ms = DEFAULT_RATE_LIMIT_PAUSE_MS;
  return Math.min(ms, MAX_PAUSE_MS);
}

/**
 * Google sends no Retry-After: its 429 (`RESOURCE_EXHAUSTED`) says how long to wait
 * in the body, as a `google.rpc.RetryInfo` detail whose `retryDelay` is a protobuf
 * Duration in JSON (`"37s"`, `"0.5s"`).
 */
function googleRetryDelayMs(error: APICallError): number | undefined {
  let body: unknown = error.data;
  if (body === undefined) {
    try {
      body = JSON.parse(error.responseBody ?? "");
    } catch {
      return undefined;
    }
  }
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as { "@type"?: unknown; retryDelay?: unknown }[]) {
    const delay = typeof detail?.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (delay && String(detail["@type"]).endsWith("google.rpc.RetryInfo")) return Number(delay[1]) * 1000;
  }
  return undefined;
}

/**
 * OpenAI's 429 for an account out of credit (`insufficient_quota`): waiting does not
 * end it, so it is a failed call (attempts counted, the turn fails with the
 * provider's message where the operator looks), not a pause that would put every
 * turn back forever. The AI SDK does not retry it either.
 */
export function spentQuota(error: APICallError): boolean {
  const data = (error.data ?? {}) as { error?: { code?: unknown; type?: unknown } };
  if (data.error?.code === "insufficient_quota" || data.error?.type === "insufficient_quota") return true;
  return /"(code|type)"\s*:\s*"insufficient_quota"/.test(error.responseBody ?? "");
}

const RATE_LIMIT_CODES = /^(429|rate_limit_exceeded|rate_limit_error|rate_limited|too_many_requests)$/i;
const OVERLOAD_CODES = /^(503|529|overloaded_error|overloaded|server_overloaded)$/i;

/**
 * A refusal the provider reported inside its stream (HTTP 200, then an error event):
 * the stream's error part carries the provider's own error object, not an APICallError
 * with a status. Anthropic sends `{ type: "rate_limit_error" | "overloaded_error", message }`;
 * OpenAI and OpenAI-compatible servers `{ message, type, code: "rate_limit_exceeded" }`,
 * some with an HTTP status as the code (`code: 429`). Null for any other failure.
 */
export function streamedRefusal(error: unknown): { kind: "rate_limited" | "overloaded"; name: string } | null {
  // Errors thrown (APICallError, a timeout, a malformed chunk) are classified by what they are.
  if (typeof error !== "object" || error === null || error instanceof Error) return null;
  const { code, type } = error as { code?: unknown; type?: unknown };
  const words = [code, type].filter((w) => typeof w === "string" || typeof w === "number").map(String);
  // Whole known codes only: `max_generate_limit_exceeded` or `moderate_limit` say nothing about load.
  const limited = words.find((w) => RATE_LIMIT_CODES.test(w));
  if (limited) return { kind: "rate_limited", name: limited };
  const overloaded = words.find((w) => OVERLOAD_CODES.test(w));
  return overloaded ? { kind: "overloaded", name: overloaded } : null;
}

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/** What a failed call says about the provider's load, or null when it says nothing (a bad request, a bug). */
export function congestionOf(error: unknown, signal?: AbortSignal): "overloaded" | "timeout" | null {
  if (signal?.aborted && (signal.reason as Error | undefined)?.name === "TimeoutError") return "timeout";
  if ((error as Error | undefined)?.name === "TimeoutError") return "timeout";
  if (!APICallError.isInstance(error)) return streamedRefusal(error)?.kind === "overloaded" ? "overloaded" : null;
  if (error.statusCode === 408 || error.statusCode === 504) return "timeout";
  if (error.statusCode === 503 || error.statusCode === 529) return "overloaded";
  return null;
}

/**
 * One provider's (and model's) call limits in this process: at most `limit` calls
 * in flight (the rest wait their turn, first come first served), and none at all
 * while a rate limit's pause runs. The limit adapts (lib/agent/adaptive-limit.ts):
 * it grows while the provider accepts calls and backs off on a 429, a 503/529 (or
 * either reported inside a stream), a timeout or a latency jump, never above the
 * operator's ceiling, which can change at any time (settings page).
 */
export class ProviderGate {
  private active = 0;
  private readonly inFlight = new Set<CallTicket>();
  private readonly waiting: Waiter[] = [];
  private pausedUntilMs = 0;
  /** When the provider began refusing every call (cleared by a call it accepts), and how it last refused. */
  private refusingSinceMs: number | null = null;
  private lastRefusal = "";
  private readonly limiter: AdaptiveLimit;

  constructor(
    readonly provider: string,
    ceiling: number,
    private readonly clock: () => number = Date.now,
    /** Names the limiter in logs and on the dashboard: provider and model. */
    readonly model = provider,
    /**
     * Each call's time limit, counted from when it gets its slot: time spent waiting for
     * one is the limiter's, not the provider's, and must not fail the turn.
     */
    private readonly callTimeoutMs?: number,
    /** How long nothing but refusals means "for good" (shortened in tests). */
    private readonly refusingForGoodMs = REFUSING_FOR_GOOD_MS,
  ) {
    this.limiter = new AdaptiveLimit(ceiling, clock);
  }

  /** Whether the gate times each call out itself (then callers need no timeout of their own). */
  get timesCallsOut() {
    return this.callTimeoutMs !== undefined;
  }

  /** The operator's ceiling (settings page, else LLM_CONCURRENCY); the limit adapts below it. */
  setCeiling(ceiling: number) {
    this.limiter.setCeiling(ceiling);
    this.pump();
  }

  /** When the provider's pause ends, or null when calls may go. */
  pausedUntil(): Date | null {
    return this.pausedUntilMs > this.clock() ? new Date(this.pausedUntilMs) : null;
  }

  /** Since when the provider has refused every call (429, or 503/529 with Retry-After), or null while it accepts them or nothing asks. */
  refusingSince(): Date | null {
    if (this.refusingSinceMs === null || this.clock() > this.pausedUntilMs + STREAK_GAP_MS) return null;
    return new Date(this.refusingSinceMs);
  }

  /** Calls in flight and calls waiting for a free slot, for the dashboard. */
  load() {
    return { active: this.active, waiting: this.waiting.length, limit: this.limiter.limit };
  }

  /** The adaptive limit: current value, ceiling, and why it last moved (the dashboard shows it). */
  limitState() {
    return this.limiter.state();
  }

  /** Pauses every call of this provider; those waiting for a slot give up now (their turns are put back). */
  pause(untilMs: number) {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    const error = this.refusal();
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  /** What a call refused by the pause is told: wait (RateLimitedError), or, after an hour of nothing but refusals, stop waiting. */
  private refusal(): Error {
    const since = this.refusingSince()?.getTime() ?? null;
    if (since !== null && this.clock() - since >= this.refusingForGoodMs)
      return new ProviderRefusingError(this.provider, new Date(since), this.lastRefusal, this.refusingForGoodMs);
    return new RateLimitedError(this.provider, new Date(this.pausedUntilMs));
  }

  /**
   * Runs one call within the limits; a rate-limit answer pauses the provider and throws
   * RateLimitedError. `call` gets the caller's signal joined with the per-call timeout.
   */
  async run<T>(call: (signal?: AbortSignal) => PromiseLike<T>, signal?: AbortSignal): Promise<T> {
    this.throwIfPaused();
    await this.acquire(signal);
    const timeout = this.callTimeoutMs ? AbortSignal.timeout(this.callTimeoutMs) : undefined;
    const callSignal = timeout && signal ? AbortSignal.any([signal, timeout]) : (timeout ?? signal);
    const ticket = this.limiter.start();
    this.inFlight.add(ticket);
    // Still running after the admission window: the provider took it (a refusal comes at once).
    const admission = setTimeout(() => {
      this.limiter.accepted(ticket, this.saturated());
      this.pump();
    }, ADMISSION_MS);
    admission.unref?.();
    try {
      this.throwIfPaused();
      const result = await call(callSignal);
      this.refusingSinceMs = null;
      this.limiter.succeeded(ticket, this.saturated());
      return result;
    } catch (error) {
      this.inFlight.delete(ticket);
      const delay = rateLimitDelayMs(error, this.clock());
      const kind =
        delay !== null
          ? APICallError.isInstance(error) && error.statusCode !== 429
            ? "overloaded"
            : "rate_limited"
          : congestionOf(error, callSignal);
      if (kind) this.backOff(ticket, kind, error, delay);
      if (delay === null) throw error;
      // A streak goes on while each refusal follows the last pause's end closely (calls kept being made).
      if (this.refusingSince() === null) this.refusingSinceMs = this.clock();
      this.lastRefusal = APICallError.isInstance(error)
        ? `HTTP ${error.statusCode}${error.message ? `: ${error.message.slice(0, 200)}` : ""}`
        : `${streamedRefusal(error)?.name ?? "a refusal"} inside the stream`;
      this.pause(this.clock() + delay);
      throw this.refusal();
    } finally {
      clearTimeout(admission);
      this.inFlight.delete(ticket);
      this.active -= 1;
      this.pump();
    }
  }

  private backOff(ticket: CallTicket, kind: Congestion, error: unknown, delay: number | null) {
    const held = [...this.inFlight].filter((t) => t.startedAt < ticket.startedAt).length;
    const streamed = streamedRefusal(error);
    const status = APICallError.isInstance(error) ? `HTTP ${error.statusCode}` : "a timeout";
    const seconds = `${((delay ?? 0) / 1000).toFixed(1)} s`;
    const cause = streamed
      ? `${streamed.name} inside the stream${delay !== null ? `, paused ${seconds}` : ""}`
      : delay !== null
        ? `${status} with Retry-After ${seconds}`
        : kind === "timeout"
          ? `a call timed out (${status})`
          : `${status} from the provider`;
    const detail = `${cause}, ${held} other calls in flight`;
    const from = this.limiter.limit;
    if (this.limiter.congested(ticket, kind, held, detail))
      log.warn("model.limit_cut", { provider: this.provider, model: this.model, reason: kind, from, to: this.limiter.limit, detail });
  }

  /** The limit is what holds calls back: some wait for a slot, or every slot is taken. */
  private saturated() {
    return this.waiting.length > 0 || this.active >= this.limiter.limit;
  }

  private throwIfPaused() {
    if (this.pausedUntil()) throw this.refusal();
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limiter.limit && this.waiting.length === 0) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private pump() {
    while (this.active < this.limiter.limit && this.waiting.length > 0) {
      this.active += 1;
      this.waiting.shift()!.resolve();
    }
  }
}

/**
 * The model with its provider's gate around every call (generate and stream), so
 * every caller (turns, background tasks, fork summaries) shares the limits.
 */
export function limitModel(handle: ModelHandle, gate: ProviderGate): ModelHandle {
  if (typeof handle.model === "string") return handle;
  const model = wrapLanguageModel({
    model: handle.model as Exclude<LanguageModel, string> as Parameters<typeof wrapLanguageModel>[0]["model"],
    middleware: {
      specificationVersion: "v4",
      wrapGenerate: ({ params, model }) => gate.run((abortSignal) => model.doGenerate({ ...params, abortSignal }), params.abortSignal),
      wrapStream: ({ params, model }) =>
        streamWithinGate(gate, (abortSignal) => model.doStream({ ...params, abortSignal }), params.abortSignal),
    },
  });
  return { ...handle, model, callsTimeOut: gate.timesCallsOut };
}

/**
 * A streamed call holds its slot until its stream ends (read to the end, failed, an
 * error part reported, or cancelled), not only until the response starts: the provider is still working
 * while it streams, so a limit counted otherwise would let far more calls run.
 */
export function streamWithinGate<T extends { stream: ReadableStream<P> }, P>(
  gate: ProviderGate,
  call: (signal?: AbortSignal) => PromiseLike<T>,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let started = false;
    // What the gate made of the call's failure (RateLimitedError when it paused the provider).
    const verdict = gate
      .run(async (callSignal?: AbortSignal) => {
        const callTimesOut = callSignal ?? signal;
        const result = await call(callTimesOut);
        // The call's end is the gate's outcome: a failure while it streams (a timeout, an error
        // part such as an overload) backs the limit off as a failed generate call does.
        let failure: unknown;
        let finish!: (error?: unknown) => void;
        const ended = new Promise<void>((done, fail) => {
          finish = (error) => (error === undefined ? done() : fail(error));
        });
        const reader = result.stream.getReader();
        const stream = new ReadableStream<P>({
          async pull(controller) {
            try {
              const next = await reader.read();
              if (next.done) {
                finish(failure);
                controller.close();
              } else {
                const part = next.value as { type?: unknown; error?: unknown } | null;
                if (part && typeof part === "object" && part.type === "error") {
                  // An error part ends the call: the gate judges it now, and a rate limit reaches
                  // the reader as RateLimitedError, the same as a refused request (the turn is put back).
                  failure ??= part.error ?? new Error("the model's stream failed");
                  finish(failure);
                  const judged = await verdict;
                  const gateSaid = judged instanceof RateLimitedError || judged instanceof ProviderRefusingError;
                  controller.enqueue(gateSaid ? ({ ...part, error: judged } as P) : next.value);
                } else controller.enqueue(next.value);
              }
            } catch (error) {
              finish(error);
              controller.error(error);
            }
          },
          async cancel(reason) {
            // Read no further: a failure seen, or the call's own time limit, is the outcome; otherwise the reader chose to stop.
            finish(failure ?? (callTimesOut?.aborted ? (callTimesOut.reason ?? reason) : undefined));
            await reader.cancel(reason);
          },
        });
        started = true;
        resolve({ ...result, stream });
        await ended;
      }, signal)
      .then(
        () => undefined,
        (error: unknown) => {
          // Once the stream was handed out, its own errors reach its reader instead.
          if (!started) reject(error);
          return error;
        },
      );
  });
}
