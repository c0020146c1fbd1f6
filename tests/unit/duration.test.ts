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
  it("has a short form for headers", () => {
    expect(shortDuration((3 * 60 + 20) * min)).toBe("3h 20m");
    expect(shortDuration(5 * min)).toBe("5m");
    expect(shortDuration(20_000)).toBe("<1m");
  });
});
