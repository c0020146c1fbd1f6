const UNITS: [string, number][] = [
  ["day", 24 * 60],
  ["hour", 60],
  ["minute", 1],
];

const plural = (count: number, name: string) => `${count} ${name}${count === 1 ? "" : "s"}`;

/**
 * A gap in human words: the largest unit and, if non-zero, the next one.
 * 45 min → "45 minutes", 180 → "3 hours", 3120 → "2 days 4 hours", 2d 0h 5m → "2 days".
 */
export function humanDuration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes === 0) return "less than a minute";
  const i = UNITS.findIndex(([, size]) => minutes >= size);
  const [name, size] = UNITS[i];
  const major = Math.floor(minutes / size);
  const parts = [plural(major, name)];
  const next = UNITS[i + 1];
  if (next) {
    const minor = Math.floor((minutes - major * size) / next[1]);
    if (minor > 0) parts.push(plural(minor, next[0]));
  }
  return parts.join(" ");
}

/** Short form for envelope headers: "5m", "3h 20m", "2d 4h". */
export function shortDuration(ms: number): string {
  // "less than a minute" first: the unit rules below would turn it into "less than am".
  return humanDuration(ms)
    .replace("less than a minute", "<1m")
    .replace(/ days?/g, "d")
    .replace(/ hours?/g, "h")
    .replace(/ minutes?/g, "m");
}
