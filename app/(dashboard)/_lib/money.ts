/** US dollars as operators read them: cents for large sums, more digits for the small costs of single turns. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (value === 0) return "$0";
  const digits = value >= 1 ? 2 : value >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

/** Token counts, grouped (12,345). */
export const tokens = (n: number) => n.toLocaleString("en");
