import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT_PAUSE_MS, ProviderGate, RateLimitedError, rateLimitDelayMs } from "@/lib/agent/call-limits";
import type { QueuedEnvelope } from "@/lib/db/claim";
import { ALBUM_CAP_MS, ALBUM_QUIET_MS, MAX_BURST, planTurn } from "@/lib/pipeline/turn-plan";

const t0 = new Date("2026-11-23T10:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const chat = (id: number, createdMs: number, extra: Partial<QueuedEnvelope> = {}): QueuedEnvelope => ({
  id,
  to: "agent:main",
  messageId: id * 10,
  forkId: null,
  createdAt: at(createdMs),
  deliverAt: null,
  forkConflict: false,
  ...extra,
});
const mail = (id: number): QueuedEnvelope => ({
  id,
  to: "channel:telegram:1",
  messageId: null,
  forkId: null,
  createdAt: at(0),
  deliverAt: null,
  forkConflict: false,
});
const options = (nowMs: number, debounceMs = 1000) => ({ now: at(nowMs), debounceMs, modelPausedUntil: null });
const ids = (plan: ReturnType<typeof planTurn>) => (plan && "take" in plan ? plan.take.map((e) => e.id) : plan);

describe("planTurn", () => {
  it("waits until the burst has been quiet for the debounce, then takes all of it", () => {
    const queue = [chat(1, 0), chat(2, 400), chat(3, 900)];
    expect(planTurn(queue, options(1500))).toEqual({ waitUntil: at(1900) });
    expect(ids(planTurn(queue, options(1900)))).toEqual([1, 2, 3]);
  });
  it("a debounce of 0 answers at once", () => {
    expect(ids(planTurn([chat(1, 0)], options(0, 0)))).toEqual([1]);
  });
  it("an album waits for its last part whatever the debounce, then is one turn", () => {
    const album = [chat(1, 0, { mediaGroup: true }), chat(2, 300, { mediaGroup: true })];
    expect(planTurn(album, options(300, 0))).toEqual({ waitUntil: at(300 + ALBUM_QUIET_MS) });
    const three = [...album, chat(3, 600, { mediaGroup: true })];
    expect(planTurn(three, options(300 + ALBUM_QUIET_MS, 0))).toEqual({ waitUntil: at(600 + ALBUM_QUIET_MS) });
    expect(ids(planTurn(three, options(600 + ALBUM_QUIET_MS, 0)))).toEqual([1, 2, 3]);
    // Never longer than the album cap after its first part, however it keeps growing.
    const endless = Array.from({ length: 12 }, (_, i) => chat(i + 1, i * 1000, { mediaGroup: true }));
    expect(ids(planTurn(endless, options(11_000, 0)))).toHaveLength(12);
    expect(ALBUM_CAP_MS).toBeLessThanOrEqual(11_000);
  });
  it("a burst that keeps growing is answered at the latest 4 debounce periods after its first message", () => {
    const queue = [chat(1, 0), chat(2, 900), chat(3, 1800), chat(4, 2700), chat(5, 3600)];
    expect(planTurn(queue, options(3700))).toEqual({ waitUntil: at(4000) });
    expect(ids(planTurn(queue, options(4000)))).toEqual([1, 2, 3, 4, 5]);
  });
  it("stops at another session, a fork conflict, channel mail, or MAX_BURST", () => {
    expect(ids(planTurn([chat(1, 0), chat(2, 0, { forkId: 7 }), chat(3, 0)], options(5000)))).toEqual([1]);
    expect(ids(planTurn([chat(1, 0), chat(2, 0, { forkConflict: true })], options(5000)))).toEqual([1]);
    expect(ids(planTurn([chat(1, 0, { forkConflict: true }), chat(2, 0)], options(5000)))).toEqual([1]);
    expect(ids(planTurn([chat(1, 0), mail(2), chat(3, 0)], options(5000)))).toEqual([1]);
    const long = Array.from({ length: MAX_BURST + 5 }, (_, i) => chat(i + 1, 0));
    expect((planTurn(long, options(5000)) as { take: unknown[] }).take).toHaveLength(MAX_BURST);
  });
  it("channel mail leads alone and is not debounced; a retry's backoff and a model pause hold chat turns", () => {
    expect(ids(planTurn([mail(1), chat(2, 0)], options(0)))).toEqual([1]);
    expect(planTurn([chat(1, 0, { deliverAt: at(9000) })], options(5000))).toEqual({ waitUntil: at(9000) });
    expect(planTurn([chat(1, 0)], { ...options(5000), modelPausedUntil: at(7000) })).toEqual({ waitUntil: at(7000) });
    expect(ids(planTurn([mail(1)], { ...options(5000), modelPausedUntil: at(7000) }))).toEqual([1]);
    expect(planTurn([], options(0))).toBeNull();
  });
});

const apiError = (statusCode: number, responseHeaders: Record<string, string> = {}) =>
  new APICallError({ message: "x", url: "http://x", requestBodyValues: {}, statusCode, responseHeaders });

describe("rate limits", () => {
  it("reads Retry-After in seconds, as an HTTP date, and retry-after-ms; only for rate-limit answers", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(rateLimitDelayMs(apiError(429, { "retry-after": "7" }), now)).toBe(7000);
    expect(rateLimitDelayMs(apiError(429, { "Retry-After": "Mon, 23 Nov 2026 10:00:30 GMT" }), now)).toBe(30_000);
    expect(rateLimitDelayMs(apiError(429, { "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1500);
    expect(rateLimitDelayMs(apiError(429), now)).toBe(DEFAULT_RATE_LIMIT_PAUSE_MS);
    expect(rateLimitDelayMs(apiError(429, { "retry-after": "junk" }), now)).toBe(DEFAULT_RATE_LIMIT_PAUSE_MS);
    expect(rateLimitDelayMs(apiError(503, { "retry-after": "3" }), now)).toBe(3000);
    expect(rateLimitDelayMs(apiError(503), now)).toBeNull();
    expect(rateLimitDelayMs(apiError(500, { "retry-after": "3" }), now)).toBeNull();
    expect(rateLimitDelayMs(new Error("boom"), now)).toBeNull();
  });

  it("a gate runs at most `limit` calls at once, and a 429 pauses it and sends its waiting calls back", async () => {
    let now = 0;
    const gate = new ProviderGate("p", 1, () => now);
    let release!: () => void;
    const first = gate.run(() => new Promise<string>((r) => (release = () => r("one"))));
    const second = gate.run(async () => "two");
    expect(gate.load()).toEqual({ active: 1, waiting: 1, limit: 1 });
    await new Promise((r) => setImmediate(r));
    release();
    await expect(Promise.all([first, second])).resolves.toEqual(["one", "two"]);

    const limited = gate.run(async () => Promise.reject(apiError(429, { "retry-after": "2" })));
    await expect(limited).rejects.toBeInstanceOf(RateLimitedError);
    expect(gate.pausedUntil()).toEqual(new Date(2000));
    await expect(gate.run(async () => "three")).rejects.toMatchObject({ until: new Date(2000) });
    now = 2000;
    await expect(gate.run(async () => "four")).resolves.toBe("four");
  });
});
