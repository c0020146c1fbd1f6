import { describe, expect, it } from "vitest";
import { niceCeiling, timeRangeAtLeast, valueRangeFromZero } from "@/app/(dashboard)/_lib/chart-scales";

const chart = (xs: number[]) => ({ data: [xs] });

describe("chart scales", () => {
  it("a lone point on a time axis in seconds gets minutes around it, not uPlot's years", () => {
    const t = 1_795_000_000;
    // uPlot widens a single x by 86,400,000 s before asking the range.
    expect(timeRangeAtLeast(240, "center")(chart([t]), t, t + 86_400_000)).toEqual([t - 120, t + 120]);
  });

  it("samples seconds apart span at least the minimum, the newest at the right edge; a wide span is kept", () => {
    expect(timeRangeAtLeast(120, "end")(chart([1000, 1003, 1006]), 1000, 1006)).toEqual([886, 1006]);
    expect(timeRangeAtLeast(120, "end")(chart([1000, 2000]), 1000, 2000)).toEqual([1000, 2000]);
  });

  it("a value axis leaves room above the largest value and ends on a round number", () => {
    expect(valueRangeFromZero()(null, 0, 1.3)).toEqual([0, 2]);
    expect(valueRangeFromZero(100)(null, 0, 122)).toEqual([0, 200]);
    expect(valueRangeFromZero()(null, null, null)).toEqual([0, 1]);
    expect([niceCeiling(0.36), niceCeiling(4), niceCeiling(5), niceCeiling(5.01)]).toEqual([0.5, 5, 5, 10]);
  });
});
