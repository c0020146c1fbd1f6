import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { ADDITIVE_STEP, AdaptiveLimit, SLOW_START_AFTER_MS, START_LIMIT } from "@/lib/agent/adaptive-limit";
import { ProviderGate, ProviderRefusingError, RateLimitedError, REFUSING_FOR_GOOD_MS } from "@/lib/agent/call-limits";

function clock(start = 1_000_000) {
  const c = { now: start, read: () => c.now };
  return c;
}

/** `n` calls accepted while calls wait for a slot. */
function accept(limit: AdaptiveLimit, n: number) {
  for (let i = 0; i < n; i++) limit.accepted(limit.start(), true);
}

describe("the adaptive model-call limit", () => {
  it("starts modest, under the ceiling", () => {
    expect(new AdaptiveLimit(1_000).limit).toBe(START_LIMIT);
    expect(new AdaptiveLimit(8).limit).toBe(8);
    expect(new AdaptiveLimit(1_000).state()).toMatchObject({ ceiling: 1_000, phase: "slow_start", lastBackoff: null });
  });

  it("grows while the provider accepts calls and the limit holds calls back, up to the ceiling", () => {
    const c = clock();
    const limit = new AdaptiveLimit(1_000, c.read);
    accept(limit, 10);
    expect(limit.limit).toBe(START_LIMIT + 20);
    // Nobody waits for a slot: a quiet provider's limit does not climb untested.
    for (let i = 0; i < 10; i++) limit.accepted(limit.start(), false);
    expect(limit.limit).toBe(START_LIMIT + 20);
    // A call counts once, whether accepted by the admission window or by its answer.
    const ticket = limit.start();
    limit.accepted(ticket, true);
    limit.succeeded(ticket, true);
    expect(limit.limit).toBe(START_LIMIT + 22);
    accept(limit, 1_000);
    expect(limit.limit).toBe(1_000);
    expect(limit.state().lastChange).toMatchObject({ from: START_LIMIT, to: 1_000, reason: "accepted" });
  });

  it("a 429 cuts the limit once per round, to what the provider was holding, at most to a quarter", () => {
    const c = clock();
    const limit = new AdaptiveLimit(1_000, c.read);
    accept(limit, 200); // 450
    const sentBefore = Array.from({ length: 5 }, () => limit.start());
    c.now += 10;
    expect(limit.congested(sentBefore[0], "rate_limited", 50, "429")).toBe(true);
    expect(limit.limit).toBe(112); // a quarter of 450: 0.9 × 50 held would be lower
    // The other refusals were sent under the old limit: they say nothing new.
    for (const t of sentBefore.slice(1)) expect(limit.congested(t, "rate_limited", 10, "429")).toBe(false);
    expect(limit.limit).toBe(112);
    c.now += 10;
    expect(limit.congested(limit.start(), "rate_limited", 100, "429")).toBe(true);
    expect(limit.limit).toBe(90); // 0.9 × the 100 the provider held
    expect(limit.state()).toMatchObject({ phase: "additive", lastBackoff: { from: 112, to: 90, reason: "rate_limited" } });
  });

  it("after a back-off it grows additively: a step per round of successful calls, none while calls are not waiting", () => {
    const c = clock();
    const limit = new AdaptiveLimit(1_000, c.read);
    c.now += 1;
    limit.congested(limit.start(), "timeout", 0, "timed out");
    expect(limit.limit).toBe(START_LIMIT / 2);
    c.now += 1;
    const round = () => {
      const n = limit.limit;
      for (let i = 0; i < n; i++) {
        const t = limit.start();
        c.now += 100;
        limit.succeeded(t, true);
        c.now -= 100;
      }
    };
    // A tenth of the limit per round while it is small…
    expect(limit.limit).toBe(25);
    round();
    expect(limit.limit).toBe(27);
    // …at most ADDITIVE_STEP from 160 up.
    limit.setCeiling(500);
    while (limit.limit < 300) round();
    const before = limit.limit;
    round();
    expect(limit.limit).toBeGreaterThanOrEqual(before + ADDITIVE_STEP - 1);
    expect(limit.limit).toBeLessThanOrEqual(before + ADDITIVE_STEP + 1);
    expect(limit.state().lastChange.reason).toBe("succeeded");
    const held = limit.limit;
    for (let i = 0; i < 100; i++) limit.succeeded(limit.start(), false);
    expect(limit.limit).toBe(held);
    // Accepted calls no longer triple it: that is slow start's, which returns after a long quiet.
    accept(limit, 10);
    expect(limit.limit).toBe(held);
    c.now += SLOW_START_AFTER_MS;
    accept(limit, 10);
    expect(limit.limit).toBe(held + 20);
  });

  it("a latency jump is congestion; latency near its baseline lets it grow", () => {
    const c = clock();
    const limit = new AdaptiveLimit(1_000, c.read);
    const call = (ms: number) => {
      const t = limit.start();
      c.now += ms;
      limit.succeeded(t, true);
    };
    for (let i = 0; i < 30; i++) call(1_000);
    const grown = limit.limit;
    expect(grown).toBe(START_LIMIT + 60);
    for (let i = 0; i < 15 && limit.state().lastBackoff === null; i++) call(10_000);
    expect(limit.state().lastBackoff).toMatchObject({ reason: "slow" });
    expect(limit.limit).toBeLessThan(grown);
    expect(limit.state().lastBackoff?.detail).toMatch(/latency .* against a baseline of/);
  });

  it("the operator's ceiling applies at once, both ways", () => {
    const c = clock();
    const limit = new AdaptiveLimit(1_000, c.read);
    accept(limit, 100); // 250
    limit.setCeiling(40);
    expect(limit.limit).toBe(40);
    expect(limit.state().lastChange).toMatchObject({ reason: "ceiling", from: 250, to: 40 });
    accept(limit, 100);
    expect(limit.limit).toBe(40);
    limit.setCeiling(100);
    expect(limit.limit).toBe(40); // raising the ceiling allows growth, it does not jump there
    accept(limit, 100);
    expect(limit.limit).toBe(100);
    expect(limit.state().ceiling).toBe(100);
  });
});

const apiError = (status: number, headers: Record<string, string> = {}) =>
  new APICallError({
    message: "fail",
    url: "http://x",
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    isRetryable: true,
  });

describe("the provider gate's adaptive limit", () => {
  it("a 429 honours Retry-After, cuts the limit and says why; other failures leave it", async () => {
    let now = 5_000;
    const gate = new ProviderGate("p", 1_000, () => now, "m");
    const hang: (() => void)[] = [];
    const running = Array.from({ length: 30 }, () => gate.run(() => new Promise<string>((r) => hang.push(() => r("ok")))));
    await new Promise((r) => setImmediate(r));
    now += 5;
    await expect(gate.run(async () => Promise.reject(apiError(500)))).rejects.toMatchObject({ statusCode: 500 });
    expect(gate.limitState().limit).toBe(START_LIMIT);
    const limited = gate.run(async () => Promise.reject(apiError(429, { "retry-after": "2" })));
    await expect(limited).rejects.toBeInstanceOf(RateLimitedError);
    expect(gate.pausedUntil()).toEqual(new Date(now + 2_000));
    expect(gate.limitState()).toMatchObject({ limit: 27, lastBackoff: { reason: "rate_limited", from: START_LIMIT, to: 27 } });
    expect(gate.limitState().lastBackoff?.detail).toBe("HTTP 429 with Retry-After 2.0 s, 30 other calls in flight");
    for (const release of hang) release();
    await Promise.all(running);
  });

  it("a 503/529 or a timeout cuts it too (a timeout is still the call's error)", async () => {
    let now = 0;
    const gate = new ProviderGate("p", 1_000, () => (now += 1));
    await expect(gate.run(async () => Promise.reject(apiError(529)))).rejects.toMatchObject({ statusCode: 529 });
    expect(gate.limitState()).toMatchObject({ limit: 12, lastBackoff: { reason: "overloaded" } });
    const timeout = new DOMException("timed out", "TimeoutError");
    await expect(gate.run(async () => Promise.reject(timeout))).rejects.toBe(timeout);
    expect(gate.limitState()).toMatchObject({ limit: 6, lastBackoff: { reason: "timeout" } });
  });

  it("a provider that refuses every call for an hour stops being waited for: the turn fails (and an accepted call resets the clock)", async () => {
    let now = 1_000_000;
    const gate = new ProviderGate("openai", 1_000, () => now, "gpt");
    const refused = () => gate.run(async () => Promise.reject(apiError(429, { "retry-after": "60" })));
    await expect(refused()).rejects.toBeInstanceOf(RateLimitedError);
    // Asked again after each pause, still refused: waiting is right until the hour is up.
    for (let minute = 1; minute < 60; minute++) {
      now += 60_000;
      await expect(refused()).rejects.toBeInstanceOf(RateLimitedError);
    }
    now += 60_000;
    const gaveUp = await refused().catch((error: unknown) => error);
    expect(gaveUp).toBeInstanceOf(ProviderRefusingError);
    expect((gaveUp as Error).message).toMatch(
      /^openai has refused every call since .* \(HTTP 429.*\); after 60 minutes of refusals turns no longer wait for it: retry this one/,
    );
    // Still paced by the pause: a call during it is not made, and is told the same.
    let made = false;
    await expect(gate.run(async () => (made = true))).rejects.toBeInstanceOf(ProviderRefusingError);
    expect(made).toBe(false);
    // Once the provider accepts a call, the next refusal is a pause again.
    now += 60_000;
    await expect(gate.run(async () => "ok")).resolves.toBe("ok");
    now += REFUSING_FOR_GOOD_MS;
    await expect(refused()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it("an hour with no calls is not an hour of refusals: a refusal long after the last pause starts a new streak", async () => {
    let now = 1_000_000;
    const gate = new ProviderGate("openai", 1_000, () => now, "gpt");
    const refused = () => gate.run(async () => Promise.reject(apiError(429, { "retry-after": "60" })));
    // One refused call (a fork summary, never retried), then a quiet night.
    await expect(refused()).rejects.toBeInstanceOf(RateLimitedError);
    expect(gate.refusingSince()).toEqual(new Date(1_000_000));
    now += 60_000; // the pause's end
    expect(gate.refusingSince()).toEqual(new Date(1_000_000));
    now += 60_001; // and a minute without a call since
    expect(gate.refusingSince()).toBeNull();
    now += 2 * REFUSING_FOR_GOOD_MS;
    // A short throttle in the morning is waited for, and counts from now.
    await expect(refused()).rejects.toBeInstanceOf(RateLimitedError);
    expect(gate.refusingSince()).toEqual(new Date(now));
  });
});
