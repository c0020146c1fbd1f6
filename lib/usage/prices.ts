import { z } from "zod";

/**
 * One row of the price table (settings `modelPrices`): US dollars per million
 * tokens for one provider's model. `cachedInput` is what the provider charges for
 * input tokens served from its prompt cache (null: charged as ordinary input).
 * `note` says where the figures came from; the prefilled rows carry the date they
 * were taken, since providers change prices without notice.
 */
/** Dollars per million tokens; the messages are shown on the settings page as they are. */
const dollars = z.number({ error: "a number of dollars per million tokens" }).min(0, "0 or more").max(100_000, "at most 100,000");

export const modelPriceSchema = z.strictObject({
  /** As in LLM_PROVIDER: openai, anthropic, google, openai-compatible. */
  provider: z.string().trim().min(1, "empty: the provider as in LLM_PROVIDER").max(64, "at most 64 characters"),
  /** As in LLM_MODEL (the model id the provider is called with). */
  model: z.string().trim().min(1, "empty: the model id as in LLM_MODEL").max(200, "at most 200 characters"),
  input: dollars,
  output: dollars,
  cachedInput: dollars.nullable().default(null),
  note: z.string().max(200, "at most 200 characters").default(""),
});

export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** The date the prefilled prices were read from the providers' public price lists. */
export const PREFILLED_PRICES_DATE = "2025-06-01";
const prefilled = `prefilled: list price on ${PREFILLED_PRICES_DATE}, check before relying on it`;
/** Gemini's rows came later, with the provider (prompts up to 200k tokens). */
const prefilledGoogle = "prefilled: list price on 2026-12-02 (prompts up to 200k tokens), check before relying on it";

/** A few well-known models, so a new install shows spend at once; operators edit or remove them. */
export const defaultModelPrices: ModelPrice[] = [
  { provider: "openai", model: "gpt-4.1", input: 2, output: 8, cachedInput: 0.5, note: prefilled },
  { provider: "openai", model: "gpt-4.1-mini", input: 0.4, output: 1.6, cachedInput: 0.1, note: prefilled },
  { provider: "openai", model: "gpt-4o", input: 2.5, output: 10, cachedInput: 1.25, note: prefilled },
  { provider: "openai", model: "gpt-4o-mini", input: 0.15, output: 0.6, cachedInput: 0.075, note: prefilled },
  { provider: "anthropic", model: "claude-sonnet-4-0", input: 3, output: 15, cachedInput: 0.3, note: prefilled },
  { provider: "anthropic", model: "claude-3-5-haiku-latest", input: 0.8, output: 4, cachedInput: 0.08, note: prefilled },
  // Gemini 2.5 Pro charges more for prompts over 200k tokens ($2.50 / $15): a turn's context stays far below that.
  { provider: "google", model: "gemini-2.5-pro", input: 1.25, output: 10, cachedInput: 0.125, note: prefilledGoogle },
  { provider: "google", model: "gemini-2.5-flash", input: 0.3, output: 2.5, cachedInput: 0.03, note: prefilledGoogle },
  { provider: "google", model: "gemini-2.5-flash-lite", input: 0.1, output: 0.4, cachedInput: 0.01, note: prefilledGoogle },
];

/** The table as a setting: at most one row per provider and model. */
export const modelPricesSchema = z
  .array(modelPriceSchema)
  .max(500)
  .refine((rows) => new Set(rows.map((r) => `${r.provider}\u0000${r.model}`)).size === rows.length, {
    message: "each provider and model may appear once",
  });

/** The tokens of one turn as the cost needs them. */
export type TokenCounts = { inputTokens: number | null; outputTokens: number | null; cachedInputTokens: number | null };

/**
 * Reads the token counts from the AI SDK's usage (`usage` of a turn, every step summed):
 * cached input is `inputTokenDetails.cacheReadTokens` (older SDKs: `cachedInputTokens`).
 */
export function tokenCounts(usage: Record<string, unknown>): TokenCounts {
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : null);
  const details = (usage.inputTokenDetails ?? {}) as Record<string, unknown>;
  return {
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    cachedInputTokens: count(details.cacheReadTokens) ?? count(usage.cachedInputTokens),
  };
}

/** The price row of a model, or null when the table has none (then the turn's cost is unknown, not zero). */
export function priceOf(prices: readonly ModelPrice[], provider: string, model: string): ModelPrice | null {
  return prices.find((p) => p.provider === provider && p.model === model) ?? null;
}

/**
 * What a turn cost in US dollars: uncached input, cached input and output tokens,
 * each times its price per million. Null without a price or without token counts
 * (a provider that reports none): an unknown cost is never shown as free.
 *
 * @example turnCost({ inputTokens: 1000, outputTokens: 200, cachedInputTokens: 400 }, gpt41)
 * // (600 × 2 + 400 × 0.5 + 200 × 8) / 1e6 = 0.003
 */
export function turnCost(tokens: TokenCounts, price: ModelPrice | null): number | null {
  if (!price || tokens.inputTokens === null || tokens.outputTokens === null) return null;
  const cached = Math.min(tokens.cachedInputTokens ?? 0, tokens.inputTokens);
  const micro =
    (tokens.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + tokens.outputTokens * price.output;
  // Rounded to a millionth of a cent: sums of many turns stay exact enough to read.
  return Math.round(micro * 100) / 1e8;
}
