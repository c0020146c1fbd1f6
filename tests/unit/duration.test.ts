import { describe, expect, it } from "vitest";
import { humanDuration, shortDuration } from "@/lib/context/duration";

const min = 60_000;

describe("humanDuration", () => {
  it.each([
    [45 * min, "45 minutes"],
    [1 * min, "1 minute"],
    [180 * min, "3 hours"],
    [(3 * 60 + 25) * min, "3 hours 25 minutes"],
    [(2 * 24 * 60 + 4 * 60) * min, "2 days 4 hours"],
    [(2 * 24 * 60 + 5) * min, "2 days"],
    [24 * 60 * min, "1 day"],
    [30_000, "less than a minute"],
  ])("%d ms → %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
  it.each([
    [30_000, "<1m"],
    [0, "<1m"],
    [-5 * min, "<1m"],
    [5 * min, "5m"],
    [60 * min, "1h"],
    [(3 * 60 + 20) * min, "3h 20m"],
    [(2 * 24 * 60 + 4 * 60) * min, "2d 4h"],
    [(2 * 24 * 60 + 5) * min, "2d"],
  ])("short form for headers: %d ms → %s", (ms, text) => {
    expect(shortDuration(ms)).toBe(text);
  });
});
