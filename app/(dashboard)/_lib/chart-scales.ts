/**
 * Scale ranges for the dashboard's uPlot charts (pure, so they are tested alone).
 * uPlot's own guesses go wrong at the edges: one point on a time axis in seconds
 * is widened by 86,400,000 s (its one-day pad assumes milliseconds: an axis of
 * years), a few samples seconds apart are ticked in milliseconds (":59.300"), and
 * a value range ending at the largest value puts that line on the plot's top edge.
 */

type Xs = { data: ArrayLike<ArrayLike<number | null | undefined>> };

/**
 * A time axis at least `span` seconds wide around the data (read from the data, not
 * from uPlot's padded guess): `end` keeps the newest at the right edge (a live
 * sample), `center` puts a lone point in the middle.
 */
export function timeRangeAtLeast(span: number, anchor: "end" | "center") {
  return (u: Xs, min: number, max: number): [number, number] => {
    const xs = u.data[0];
    const first = xs.length ? Number(xs[0]) : min;
    const last = xs.length ? Number(xs[xs.length - 1]) : max;
    if (last - first >= span) return [first, last];
    if (anchor === "end") return [last - span, last];
    const middle = (first + last) / 2;
    return [middle - span / 2, middle + span / 2];
  };
}

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value`. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value - 1e-9 * power) return step * power;
  return 10 * power;
}

/** A value axis from 0 with room above the largest value (at least a fifth), ending on a round number. */
export function valueRangeFromZero(floor = 1) {
  return (_u: unknown, _min: number | null, max: number | null): [number, number] => [0, Math.max(floor, niceCeiling((max ?? 0) * 1.2))];
}

/** Time-axis steps in seconds: never finer than a second. */
export const WHOLE_SECOND_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];

/** Tick labels of a time axis as wall-clock times (10:50:30), one row, no dates over each other. */
export function clockTicks(_u: unknown, splits: number[]): string[] {
  return splits.map((s) => new Date(s * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
}
