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

  it("the loop's busyness covers the last half second, not the quiet spell before it", async () => {
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    eventLoopBusy(); // starts the measurement
    await wait(1_600); // quiet: three windows with nothing to do
    expect(eventLoopBusy()).toBeLessThan(0.5);
    const until = performance.now() + 1_500;
    while (performance.now() < until) {
      // the thread is held: nothing else runs (the timer's reading then spans at most one quiet window before it)
    }
    await wait(20);
    expect(eventLoopBusy()).toBeGreaterThan(0.7);
  });
});
