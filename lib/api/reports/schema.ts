import { z } from "zod";
import { recordIdParam } from "../../record-id";
import { defineOperations, isoDate } from "../operation";

const DAY = 86_400_000;
/** The longest range one report may cover. */
export const MAX_REPORT_DAYS = 366;

/** A day (`2026-11-01`, UTC midnight) or an ISO 8601 time with its offset. */
const when = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);
const instant = (value: string) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/** The query string as the document lists it. */
export const reportQueryFields = z.strictObject({
  from: when.optional().describe("a day (YYYY-MM-DD, UTC midnight) or an ISO 8601 time; inclusive; default: 7 days before `to`"),
  to: when.optional().describe("a day (UTC midnight) or an ISO 8601 time; exclusive; default: the end of today (UTC)"),
  botId: recordIdParam.optional().describe("one bot's conversations"),
  operatorId: recordIdParam.optional().describe("the conversations one operator handled: their first answers and their resolves"),
  label: z.string().trim().min(1).max(200).optional().describe("the conversations carrying this label now (its name, ignoring case)"),
});

/** `?from=&to=&botId=&operatorId=&label=`: [from, to), at most 366 days, `to` after `from`. */
export const reportQuerySchema = reportQueryFields.transform((q, ctx) => {
  const to = q.to ? instant(q.to) : new Date(startOfDay(Date.now()) + DAY);
  const from = q.from ? instant(q.from) : new Date(to.getTime() - 7 * DAY);
  if (from >= to) ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
  else if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * DAY)
    ctx.addIssue({ code: "custom", path: ["to"], message: `the range may span at most ${MAX_REPORT_DAYS} days` });
  return { from, to, botId: q.botId, operatorId: q.operatorId, label: q.label };
});
export type ReportQuery = z.output<typeof reportQuerySchema>;

/** p50 and p90 in seconds (nearest rank over conversations); null when none was measured. */
const percentiles = z.strictObject({ p50: z.number().nullable(), p90: z.number().nullable() });

export const reportResponse = z.strictObject({
  from: isoDate,
  to: isoDate,
  conversations: z.strictObject({
    /** Conversations whose first user message falls in [from, to). */
    opened: z.number().int(),
    /** Resolve events recorded in [from, to) (a conversation resolved twice counts twice). */
    resolved: z.number().int(),
  }),
  /** Of the conversations opened in range: first user message → first bot message / first operator message. */
  firstResponseSeconds: z.strictObject({ bot: percentiles, human: percentiles }),
  /** Of the conversations opened in range and resolved since: first user message → first resolve. */
  resolutionSeconds: percentiles,
  /** Opened conversations with a handoff request since they opened / opened; null when none opened. */
  handoffRate: z.number().nullable(),
  /** Opened conversations the bot answered and no operator ever did / opened; null when none opened. */
  answeredByBotShare: z.number().nullable(),
  /** Every UTC day of the range: conversations opened, resolve events and handoff requests that day. */
  byDay: z.array(z.strictObject({ day: z.string(), opened: z.number().int(), resolved: z.number().int(), handoffs: z.number().int() })),
});
export type Report = z.output<typeof reportResponse>;

export const operations = defineOperations([
  {
    method: "get",
    path: "/reports",
    summary:
      "The inbox report over [from, to) (default: the last 7 days): conversations opened and resolved, first response and resolution times (p50/p90), handoff rate, share answered by the bot alone, per UTC day; ?botId=, ?operatorId=, ?label=; an agent limited to some bots sees theirs only",
    query: reportQueryFields,
    response: { status: 200, schema: reportResponse },
    errors: {
      400: "a bad range, or a label no label has",
      404: "botId names an unknown bot or one outside the caller's bots; operatorId an unknown operator",
    },
  },
  {
    method: "get",
    path: "/reports.csv",
    summary:
      "The same report as CSV: one line per UTC day, then a total line carrying the headline figures; cells starting with = + - @ get a leading quote",
    query: reportQueryFields,
    response: { status: 200, schema: z.string(), contentType: "text/csv", description: "CSV with a header line" },
    errors: { 404: "as GET /reports" },
  },
]);
