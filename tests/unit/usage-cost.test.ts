import { describe, expect, it } from "vitest";
import { usageCsv } from "@/app/(dashboard)/usage/csv";
import { reasonLabel } from "@/lib/metrics/record";
import { defaultSettings, settingsUpdateSchema } from "@/lib/settings/schema";
import { defaultModelPrices, priceOf, tokenCounts, turnCost, type ModelPrice } from "@/lib/usage/prices";

const gpt41: ModelPrice = { provider: "openai", model: "gpt-4.1", input: 2, output: 8, cachedInput: 0.5, note: "" };

describe("turn cost", () => {
  it("is uncached input, cached input and output, each times its price per million", () => {
    expect(turnCost({ inputTokens: 1000, outputTokens: 200, cachedInputTokens: 400 }, gpt41)).toBe(0.003);
    expect(turnCost({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: null }, gpt41)).toBe(2);
    // No cached price: cached tokens are charged as input.
    expect(turnCost({ inputTokens: 100, outputTokens: 0, cachedInputTokens: 100 }, { ...gpt41, cachedInput: null })).toBe(0.0002);
  });

  it("is unknown (null), never zero, without a price or without token counts", () => {
    expect(turnCost({ inputTokens: 10, outputTokens: 5, cachedInputTokens: null }, null)).toBeNull();
    expect(turnCost({ inputTokens: null, outputTokens: 5, cachedInputTokens: null }, gpt41)).toBeNull();
  });

  it("reads the AI SDK's usage, cached input from inputTokenDetails (or the older field)", () => {
    expect(tokenCounts({ inputTokens: 12, outputTokens: 5, inputTokenDetails: { cacheReadTokens: 4 } })).toEqual({
      inputTokens: 12,
      outputTokens: 5,
      cachedInputTokens: 4,
    });
    expect(tokenCounts({ inputTokens: 12, outputTokens: 5, cachedInputTokens: 3 }).cachedInputTokens).toBe(3);
    expect(tokenCounts({})).toEqual({ inputTokens: null, outputTokens: null, cachedInputTokens: null });
    expect(tokenCounts({ inputTokens: -1, outputTokens: "5" }).inputTokens).toBeNull();
  });

  it("finds a price by provider and model exactly", () => {
    expect(priceOf(defaultModelPrices, "openai", "gpt-4o-mini")?.input).toBe(0.15);
    expect(priceOf(defaultModelPrices, "openai-compatible", "gpt-4o-mini")).toBeNull();
  });

  it("prefills dated prices, and refuses a table naming a model twice or a negative price", () => {
    expect(defaultSettings.modelPrices.length).toBeGreaterThan(0);
    expect(defaultSettings.modelPrices.every((p) => /prefilled: list price on \d{4}-\d{2}-\d{2}/.test(p.note))).toBe(true);
    expect(settingsUpdateSchema.safeParse({ modelPrices: [gpt41, gpt41] }).success).toBe(false);
    expect(settingsUpdateSchema.safeParse({ modelPrices: [{ ...gpt41, input: -1 }] }).success).toBe(false);
    expect(settingsUpdateSchema.safeParse({ modelPrices: [gpt41] }).success).toBe(true);
  });
});

describe("metric labels", () => {
  it("drop the names of unknown fields and stay bounded whatever arrives", () => {
    expect(reasonLabel("unknown update field foo_bar (newer Bot API?)")).toBe("unknown update field");
    expect(reasonLabel("unknown event type weird")).toBe("unknown event type");
    const labels = new Set(Array.from({ length: 200 }, (_, i) => reasonLabel(`made-up reason ${i}`)));
    expect(labels.size).toBeLessThanOrEqual(41);
    expect(labels).toContain("other");
  });
});

describe("usage CSV", () => {
  it("writes a header, one line per row and the totals, quoting and defusing text", () => {
    const sums = { turns: 2, inputTokens: 24, cachedInputTokens: 0, outputTokens: 10, costUsd: 0.000128, unpricedTurns: 0 };
    const replays = { replays: 3, inputTokens: 30, outputTokens: 9, costUsd: 0.0002, unpricedReplays: 1 };
    const csv = usageCsv({
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-02T00:00:00.000Z",
      groupBy: "conversation",
      totals: sums,
      replays,
      rows: [{ key: "7", label: '=HYPERLINK("x"), "quoted"', ...sums, costUsd: null, unpricedTurns: 2, replays }],
    });
    expect(csv.split("\r\n")).toEqual([
      "conversation_id,conversation,turns,input_tokens,cached_input_tokens,output_tokens,cost_usd,unpriced_turns,replays,replay_input_tokens,replay_output_tokens,replay_cost_usd,unpriced_replays",
      `7,"'=HYPERLINK(""x""), ""quoted""",2,24,0,10,,2,3,30,9,0.0002,1`,
      "total,,2,24,0,10,0.000128,0,3,30,9,0.0002,1",
      "",
    ]);
  });
});
