import { z } from "zod";
import type { BotScope } from "../db/conversation-scope";
import type { Database } from "../db/database";
import { replayTotals, usageByGroup, usageTotals, type ReplaySums, type UsageGroup, type UsageGroupRow, type UsageSums } from "../db/usage";

const DAY = 86_400_000;
/** The longest range one request may sum (a year and a day, so a whole year by days fits). */
export const MAX_RANGE_DAYS = 367;
/** Conversations listed per report: the most expensive. */
export const TOP_CONVERSATIONS = 20;

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
/** A day (`2026-11-01`, UTC) or an ISO 8601 time with its offset. */
const when = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/**
 * `?from=&to=&groupBy=`: `from` inclusive, `to` exclusive, except that a `to`
 * given as a day includes that day. Defaults: the last 30 days up to now, by day.
 */
export const usageQuerySchema = z
  .strictObject({
    from: when.optional(),
    to: when.optional(),
    groupBy: z.enum(["day", "model", "conversation"]).default("day"),
  })
  .transform((q, ctx) => {
    const to = q.to ? new Date(dateOnly.test(q.to) ? Date.parse(`${q.to}T00:00:00Z`) + DAY : Date.parse(q.to)) : new Date();
    const from = q.from
      ? new Date(q.from.length === 10 ? `${q.from}T00:00:00Z` : q.from)
      : new Date(startOfDay(to.getTime() - 1) - 29 * DAY);
    if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "must be before to" });
    else if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY)
      ctx.addIssue({ code: "custom", path: ["to"], message: `the range may span at most ${MAX_RANGE_DAYS} days` });
    return { from, to, groupBy: q.groupBy as UsageGroup };
  });

export type UsageQuery = z.output<typeof usageQuerySchema>;

const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/**
 * Tokens and spend in a range, per day (every day of the range, quiet ones as
 * zeros, so a chart has no gaps), per model, or per conversation (the top 20 by
 * spend, replays included), with the range's totals. Live turns (what answering
 * users cost) and replays (what trying settings on past turns cost) are summed
 * apart, in the same rows. A caller limited to some bots (`bots`) sees only their
 * conversations' turns and replays.
 */
export async function usageReport(db: Database, query: UsageQuery, bots?: BotScope) {
  const range = { ...query, bots };
  const [totals, replays, groups] = await Promise.all([
    usageTotals(db, range),
    replayTotals(db, range),
    usageByGroup(db, { ...range, limit: query.groupBy === "conversation" ? TOP_CONVERSATIONS : undefined }),
  ]);
  const rows = query.groupBy === "day" ? everyDay(query, groups) : groups;
  return { from: query.from, to: query.to, groupBy: query.groupBy, totals, replays, rows };
}

const zero: UsageSums = { turns: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: null, unpricedTurns: 0 };
const noReplays: ReplaySums = { replays: 0, inputTokens: 0, outputTokens: 0, costUsd: null, unpricedReplays: 0 };

function everyDay(range: { from: Date; to: Date }, groups: UsageGroupRow[]) {
  const byDay = new Map(groups.map((g) => [g.key, g]));
  const days: UsageGroupRow[] = [];
  for (let ms = startOfDay(range.from.getTime()); ms < range.to.getTime(); ms += DAY) {
    const key = new Date(ms).toISOString().slice(0, 10);
    days.push(byDay.get(key) ?? { key, label: null, ...zero, replays: noReplays });
  }
  return days;
}
