import type { Database } from "../db/database";
import { getSettings } from "../settings/store";
import { priceOf, tokenCounts, turnCost, type TokenCounts } from "./prices";

/**
 * The usage columns a turn stores: its token counts and its cost at the prices
 * the settings hold now (a later price change does not rewrite past turns).
 */
export async function turnUsageColumns(
  db: Database,
  model: { provider: string; modelId: string },
  usage: Record<string, unknown>,
): Promise<TokenCounts & { costUsd: number | null }> {
  const tokens = tokenCounts(usage);
  const { modelPrices } = await getSettings(db);
  return { ...tokens, costUsd: turnCost(tokens, priceOf(modelPrices, model.provider, model.modelId)) };
}
