/** US dollars as operators read them: cents for large sums, more digits for the small costs of single turns. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (value === 0) return "$0";
  const digits = value >= 1 ? 2 : value >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

/** Token counts, grouped (12,345). */
export const tokens = (n: number) => n.toLocaleString("en");

/**
 * A total that may include turns without a price: "cost unknown" when none had one,
 * "at least $0.0123" when some had none (their cost is not in the sum), else the sum.
 */
export function spentText(costUsd: number | null | undefined, unpricedTurns: number): string {
  if (costUsd === null || costUsd === undefined) return "cost unknown";
  return unpricedTurns > 0 ? `at least ${usd(costUsd)}` : usd(costUsd);
}
