import { describe, expect, it } from "vitest";
import type { LiveEvent } from "@/lib/events/bus";
import { eventsFromPayload, notifyPayloads } from "@/lib/events/postgres-relay";

describe("the event relay's NOTIFY payloads", () => {
  it("carries one tick's events in one payload, repeats dropped, and the receiver reads them back in order", () => {
    const events: LiveEvent[] = [
      { type: "message", conversationId: 1, messageId: 10 },
      { type: "envelope", conversationId: 1, envelopeId: 5 },
      { type: "message", conversationId: 1, messageId: 10 },
      { type: "settings" },
    ];
    const payloads = notifyPayloads("a", events);
    expect(payloads).toHaveLength(1);
    expect(eventsFromPayload(payloads[0], "b")).toEqual([events[0], events[1], events[3]]);
    // An instance ignores its own payloads (it delivered those events locally already).
    expect(eventsFromPayload(payloads[0], "a")).toEqual([]);
  });

  it("cuts a large batch into payloads PostgreSQL accepts (under 8000 bytes), losing none", () => {
    const events: LiveEvent[] = Array.from({ length: 2_000 }, (_, i) => ({ type: "message", conversationId: i, messageId: 1_000_000 + i }));
    const payloads = notifyPayloads("origin-id", events);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8_000);
    expect(payloads.flatMap((p) => eventsFromPayload(p, "other"))).toEqual(events);
  });

  it("sends a batch of one in the single-event form, which instances from before batching read", () => {
    const [payload] = notifyPayloads("a", [{ type: "settings" }]);
    expect(JSON.parse(payload)).toEqual({ origin: "a", event: { type: "settings" } });
  });

  it("reads the single-event form older instances send, and drops what is not an event", () => {
    expect(eventsFromPayload(JSON.stringify({ origin: "x", event: { type: "fork", forkId: 3 } }), "y")).toEqual([
      { type: "fork", forkId: 3 },
    ]);
    expect(eventsFromPayload(JSON.stringify({ origin: "x", events: [{ type: "bogus" }, { type: "settings" }] }), "y")).toEqual([
      { type: "settings" },
    ]);
    expect(eventsFromPayload("not json", "y")).toEqual([]);
    expect(eventsFromPayload("null", "y")).toEqual([]);
  });
});
