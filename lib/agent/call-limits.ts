import { APICallError, wrapLanguageModel, type LanguageModel } from "ai";
import type { ModelHandle } from "./model";

/**
 * The provider asked us to slow down (HTTP 429, or 503/529 with Retry-After): its
 * calls are paused until `until`. Not the envelope's fault, so the worker puts the
 * turn back for then without counting an attempt.
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

/** Without a Retry-After header, a 429 pauses the provider this long. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 5_000;
/** A longer Retry-After (a spent daily quota) is capped: the turn is tried again then. */
const MAX_PAUSE_MS = 60 * 60_000;

/**
 * How long a failed call asks us to wait, or null when it is not a rate limit.
 * Reads `retry-after-ms` (OpenAI) and `retry-after` (seconds or an HTTP date),
 * the headers the AI SDK's own retry honours.
 */
export function rateLimitDelayMs(error: unknown, now = Date.now()): number | null {
  if (!APICallError.isInstance(error)) return null;
  const headers = Object.fromEntries(Object.entries(error.responseHeaders ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let ms: number | undefined;
  const afterMs = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(afterMs)) ms = afterMs;
  const after = headers["retry-after"];
  if (ms === undefined && after) {
    const seconds = Number(after.trim());
    ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
  }
  const status = error.statusCode;
  const limited = status === 429 || ((status === 503 || status === 529) && ms !== undefined);
  if (!limited) return null;
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) ms = DEFAULT_RATE_LIMIT_PAUSE_MS;
  return Math.min(ms, MAX_PAUSE_MS);
}

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/**
 * One provider's call limits in this process: at most `limit` calls in flight
 * (the rest wait their turn, first come first served), and none at all while a
 * rate limit's pause runs. The limit can change at any time (settings page).
 */
export class ProviderGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private pausedUntilMs = 0;

  constructor(
    readonly provider: string,
    private limit: number,
    private readonly clock: () => number = Date.now,
  ) {}

  setLimit(limit: number) {
    this.limit = Math.max(1, limit);
    this.pump();
  }

  /** When the provider's pause ends, or null when calls may go. */
  pausedUntil(): Date | null {
    return this.pausedUntilMs > this.clock() ? new Date(this.pausedUntilMs) : null;
  }

  /** Calls in flight and calls waiting for a free slot, for the dashboard. */
  load() {
    return { active: this.active, waiting: this.waiting.length, limit: this.limit };
  }

  /** Pauses every call of this provider; those waiting for a slot give up now (their turns are put back). */
  pause(untilMs: number) {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    const error = new RateLimitedError(this.provider, new Date(this.pausedUntilMs));
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  /** Runs one call within the limits; a rate-limit answer pauses the provider and throws RateLimitedError. */
  async run<T>(call: () => PromiseLike<T>, signal?: AbortSignal): Promise<T> {
    this.throwIfPaused();
    await this.acquire(signal);
    try {
      this.throwIfPaused();
      return await call();
    } catch (error) {
      const delay = rateLimitDelayMs(error, this.clock());
      if (delay === null) throw error;
      this.pause(this.clock() + delay);
      throw new RateLimitedError(this.provider, new Date(this.pausedUntilMs));
    } finally {
      this.active -= 1;
      this.pump();
    }
  }

  private throwIfPaused() {
    const until = this.pausedUntil();
    if (until) throw new RateLimitedError(this.provider, until);
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit && this.waiting.length === 0) {
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
    while (this.active < this.limit && this.waiting.length > 0) {
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
      specificationVersion: "v3",
      wrapGenerate: ({ doGenerate, params }) => gate.run(doGenerate, params.abortSignal),
      wrapStream: ({ doStream, params }) => streamWithinGate(gate, doStream, params.abortSignal),
    },
  });
  return { ...handle, model };
}

/**
 * A streamed call holds its slot until its stream ends (read to the end, failed or
 * cancelled), not only until the response starts: the provider is still working
 * while it streams, so a limit counted otherwise would let far more calls run.
 */
export function streamWithinGate<T extends { stream: ReadableStream<P> }, P>(
  gate: ProviderGate,
  call: (signal?: AbortSignal) => PromiseLike<T>,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let started = false;
    gate
      .run(async () => {
        const result = await call(signal);
        let release!: () => void;
        const ended = new Promise<void>((done) => (release = done));
        const reader = result.stream.getReader();
        const stream = new ReadableStream<P>({
          async pull(controller) {
            try {
              const next = await reader.read();
              if (next.done) {
                release();
                controller.close();
              } else controller.enqueue(next.value);
            } catch (error) {
              release();
              controller.error(error);
            }
          },
          async cancel(reason) {
            release();
            await reader.cancel(reason);
          },
        });
        started = true;
        resolve({ ...result, stream });
        await ended;
      }, signal)
      .catch((error) => {
        // Once the stream was handed out, its own errors reach its reader instead.
        if (!started) reject(error);
      });
  });
}
