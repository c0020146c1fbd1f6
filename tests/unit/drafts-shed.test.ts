import { describe, expect, it } from "vitest";
import { DRAFTS_SHED_AT, shedDrafts } from "@/lib/pipeline/answer-draft";
import { eventLoopBusy } from "@/lib/pipeline/event-loop-busy";

describe("drafts under load", () => {
  it("are shed only when many turns run and the event loop is saturated, never for a few turns", () => {
    const { turnsRunning: many, loopBusy: busy } = DRAFTS_SHED_AT;
    expect(shedDrafts(many, busy)).toBe(true);
    expect(shedDrafts(many * 10, 1)).toBe(true);
    expect(shedDrafts(many - 1, 1)).toBe(false); // a few turns on a busy loop (a slow page, a big export): drafts stay
    expect(shedDrafts(1_000, busy - 0.01)).toBe(false); // a thousand turns waiting on the model cost the loop little
    expect(shedDrafts(0, 0)).toBe(false);
  });

  it("the loop's busyness reads a blocked stretch as busy", () => {
    const busy = eventLoopBusy(100);
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // the thread is held: nothing else runs
    }
    expect(busy()).toBeGreaterThan(0.9);
  });
});
