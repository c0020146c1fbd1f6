const UNITS: [name: string, minutes: number][] = [
  ["day", 24 * 60],
  ["hour", 60],
  ["minute", 1],
];

/** The two largest units of a duration, the second left out when zero; [] under a minute. */
function largestUnits(ms: number): [count: number, unit: string][] {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes === 0) return [];
  const i = UNITS.findIndex(([, size]) => minutes >= size);
  const [name, size] = UNITS[i];
  const major = Math.floor(minutes / size);
  const parts: [number, string][] = [[major, name]];
  const next = UNITS[i + 1];
  if (next) {
    const minor = Math.floor((minutes - major * size) / next[1]);
    if (minor > 0) parts.push([minor, next[0]]);
  }
  return parts;
}

/**
 * A gap in human words: the largest unit and, if non-zero, the next one.
 * 45 min → "45 minutes", 180 → "3 hours", 3120 → "2 days 4 hours", 2d 0h 5m → "2 days".
 */
export function humanDuration(ms: number): string {
  const parts = largestUnits(ms);
  if (parts.length === 0) return "less than a minute";
  return parts.map(([count, unit]) => `${count} ${unit}${count === 1 ? "" : "s"}`).join(" ");
}

/** Short form for envelope headers: "<1m", "5m", "3h 20m", "2d 4h". */
export function shortDuration(ms: number): string {
  const parts = largestUnits(ms);
  if (parts.length === 0) return "<1m";
  return parts.map(([count, unit]) => `${count}${unit[0]}`).join(" ");
}
