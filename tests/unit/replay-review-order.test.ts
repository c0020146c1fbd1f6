import { describe, expect, it } from "vitest";
import { inReviewOrder } from "@/lib/replay/view";

describe("inReviewOrder", () => {
  it("puts failed turns first, then changed answers, then running, then unchanged; each oldest turn first", () => {
    const results = [
      { turnId: 7, status: "done", answerChanged: false },
      { turnId: 3, status: "running", answerChanged: false },
      { turnId: 9, status: "done", answerChanged: true },
      { turnId: 5, status: "failed", answerChanged: false },
      { turnId: 2, status: "done", answerChanged: false },
      { turnId: 4, status: "done", answerChanged: true },
    ];
    expect(inReviewOrder(results).map((r) => r.turnId)).toEqual([5, 4, 9, 3, 2, 7]);
  });

  it("leaves its input as it was", () => {
    const results = [
      { turnId: 2, status: "done", answerChanged: false },
      { turnId: 1, status: "done", answerChanged: false },
    ];
    inReviewOrder(results);
    expect(results.map((r) => r.turnId)).toEqual([2, 1]);
  });
});
