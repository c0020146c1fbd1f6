import { z } from "zod";
import { usageQuerySchema } from "../usage/report";
import { defineOperations, isoDate } from "./operation";

export { usageQuerySchema };

const sums = {
  turns: z.number().int(),
  inputTokens: z.number().int(),
  /** Part of inputTokens: served from the provider's prompt cache. */
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** US dollars of the priced turns; null when none was priced. */
  costUsd: z.number().nullable(),
  /** Turns whose model had no price when they ran: their spend is unknown, not zero. */
  unpricedTurns: z.number().int(),
};

export const usageSums = z.strictObject(sums);

/** Replays (single and dataset runs) that ended: what trying settings on past turns cost, apart from the live turns. */
export const replaySums = z.strictObject({
  replays: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** US dollars of the priced replays; null when none was priced. */
  costUsd: z.number().nullable(),
  /** Replays that used tokens of a model without a price. */
  unpricedReplays: z.number().int(),
});

export const usageResponse = z.strictObject({
  from: isoDate,
  to: isoDate,
  groupBy: z.enum(["day", "model", "conversation"]),
  /** The live turns (answering users). */
  totals: usageSums,
  /** Replays started in the range, apart from the live turns. */
  replays: replaySums,
  /** By day: every UTC day of the range (`YYYY-MM-DD`). By model: `provider:model`. By conversation: its id (top 20 by spend), `label` its title. */
  rows: z.array(z.strictObject({ key: z.string(), label: z.string().nullable(), ...sums, replays: replaySums })),
});

/** All turns of one conversation, ever, and apart its replays. */
export const conversationUsageResponse = z.strictObject({ conversationId: z.number().int(), ...sums, replays: replaySums });

export const operations = defineOperations([
  {
    method: "get",
    path: "/usage",
    summary:
      "Tokens and spend of agent turns, and apart of replays, in a range (default: the last 30 days), per day, model or conversation (top 20)",
    query: z.strictObject({
      from: z.string().optional().describe("a day (YYYY-MM-DD, UTC) or an ISO 8601 time; inclusive"),
      to: z.string().optional().describe("a day (inclusive) or an ISO 8601 time (exclusive); default now"),
      groupBy: z.enum(["day", "model", "conversation"]).optional(),
    }),
    response: { status: 200, schema: usageResponse },
  },
  {
    method: "get",
    path: "/conversations/{id}/usage",
    summary: "Tokens and spend of all the agent turns of one conversation, and apart of its replays",
    response: { status: 200, schema: conversationUsageResponse },
  },
]);
