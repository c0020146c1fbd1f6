import { describe, expect, it } from "vitest";
import { parseDeliverAt } from "@/lib/envelope/deliver-at";

const now = new Date("2026-11-22T12:00:00.000Z");

describe("parseDeliverAt", () => {
  it.each([
    ["+30m", "2026-11-22T12:30:00.000Z"],
    ["+2h", "2026-11-22T14:00:00.000Z"],
    ["+1d", "2026-11-23T12:00:00.000Z"],
    ["+90s", "2026-11-22T12:01:30.000Z"],
    ["+1h30m", "2026-11-22T13:30:00.000Z"],
    ["2026-12-01T09:00:00Z", "2026-12-01T09:00:00.000Z"],
    ["2026-12-01T09:00:00+02:00", "2026-12-01T07:00:00.000Z"],
    ["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.000Z"],
  ])("%s → %s", (input, iso) => {
    expect(parseDeliverAt(input, now)!.toISOString()).toBe(iso);
  });
  it("is null when absent", () => {
    expect(parseDeliverAt(undefined, now)).toBeNull();
    expect(parseDeliverAt("", now)).toBeNull();
  });
  it.each(["+", "+2x", "+2h garbage", "tomorrow", "2026-12-01", "2026-12-01T09:00:00", "+9999d"])("refuses %j", (input) => {
    expect(() => parseDeliverAt(input, now)).toThrow(/deliverAt/);
  });
});
