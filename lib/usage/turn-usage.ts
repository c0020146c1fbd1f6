import { priceOf, tokenCounts, turnCost, type ModelPrice, type TokenCounts } from "./prices";

/**
 * The usage columns a turn stores: its token counts and its cost at the prices
 * handed in, the settings' table as the turn read it (a later price change does
 * not rewrite past turns).
 */
export function turnUsageColumns(
  prices: readonly ModelPrice[],
  model: { provider: string; modelId: string },
  usage: Record<string, unknown>,
): TokenCounts & { costUsd: number | null } {
  const tokens = tokenCounts(usage);
  return { ...tokens, costUsd: turnCost(tokens, priceOf(prices, model.provider, model.modelId)) };
}
