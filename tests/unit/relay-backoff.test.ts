import { describe, expect, it } from "vitest";
import { reconnectDelay } from "@/lib/events/postgres-relay";

describe("the event relay's reconnect delay", () => {
  it("doubles from the base after each failure in a row and stops at the cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(n, 1_000))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(reconnectDelay(1_000, 50)).toBe(30_000);
    expect(reconnectDelay(0, 50, 200)).toBe(50);
  });
});
