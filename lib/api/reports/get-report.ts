import { type BotScope, inScope } from "../../db/conversation-scope";
import { findBot } from "../../db/bots";
import type { Database } from "../../db/database";
import { findOperatorById } from "../../db/operators";
import { eventsByDay, openedConversations, type OpenedConversation, type ReportFilter } from "../../db/reports";
import { AppError, notFound } from "../../errors";
import { labelsNamed } from "../../inbox/labels";
import type { Report, ReportQuery } from "./schema";

const DAY = 86_400_000;
/**
 * The most conversations one report reads (one row of a few timestamps each, so a few
 * MB at most): percentiles are taken in memory over all of them, never over a sample.
 * A range with more is refused (400) rather than read without a bound.
 */
export const MAX_REPORT_CONVERSATIONS = 100_000;

/**
 * The inbox report (docs/API.md "Reports" defines each figure). A caller limited to
 * some bots (`bots`) sees only their conversations; a `botId` outside them answers 404
 * as an unknown bot does.
 */
export async function getReport(db: Database, query: ReportQuery, bots?: BotScope): Promise<Report> {
  const filter = await reportFilter(db, query, bots);
  const [opened, events] = await Promise.all([
    openedConversations(db, { from: query.from, to: query.to, limit: MAX_REPORT_CONVERSATIONS + 1 }, filter),
    eventsByDay(db, query, filter),
  ]);
  if (opened.length > MAX_REPORT_CONVERSATIONS)
    throw new AppError(
      "bad_request",
      `more than ${MAX_REPORT_CONVERSATIONS.toLocaleString("en")} conversations opened in this range: narrow it or pick a bot`,
    );
  return summarize(query, opened, events, filter.operatorName);
}

async function reportFilter(db: Database, query: ReportQuery, bots: BotScope | undefined): Promise<ReportFilter> {
  if (query.botId !== undefined) {
    const bot = await findBot(db, query.botId);
    if (!bot || !inScope(bots, bot.id)) throw notFound("bot");
  }
  let operatorName: string | undefined;
  if (query.operatorId !== undefined) {
    const operator = await findOperatorById(db, query.operatorId);
    if (!operator) throw notFound("operator");
    operatorName = operator.name;
  }
  // A name no label has is a 400, as on the conversation list.
  const labelId = query.label !== undefined ? (await labelsNamed(db, [query.label]))[0].id : undefined;
  return { bots, botId: query.botId, operatorName, labelId };
}

/** The figures from the rows read; `operator`: only their first answers and first resolves are timed. */
export function summarize(
  range: { from: Date; to: Date },
  opened: OpenedConversation[],
  events: { day: string; resolved: number; handoffs: number }[],
  operator?: string,
): Report {
  const seconds = (from: Date, until: Date | null) => (until ? (until.getTime() - from.getTime()) / 1000 : null);
  const bot = opened.map((c) => seconds(c.openedAt, c.firstBotAt));
  const human = opened.map((c) => (operator === undefined || c.firstHumanBy === operator ? seconds(c.openedAt, c.firstHumanAt) : null));
  const resolution = opened.map((c) =>
    operator === undefined || c.firstResolvedBy === `operator:${operator}` ? seconds(c.openedAt, c.firstResolvedAt) : null,
  );
  const share = (n: number) => (opened.length ? n / opened.length : null);
  const openedByDay = new Map<string, number>();
  for (const c of opened) {
    const day = c.openedAt.toISOString().slice(0, 10);
    openedByDay.set(day, (openedByDay.get(day) ?? 0) + 1);
  }
  const eventsOf = new Map(events.map((e) => [e.day, e]));
  const byDay: Report["byDay"] = [];
  for (let ms = Math.floor(range.from.getTime() / DAY) * DAY; ms < range.to.getTime(); ms += DAY) {
    const day = new Date(ms).toISOString().slice(0, 10);
    byDay.push({
      day,
      opened: openedByDay.get(day) ?? 0,
      resolved: eventsOf.get(day)?.resolved ?? 0,
      handoffs: eventsOf.get(day)?.handoffs ?? 0,
    });
  }
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    conversations: { opened: opened.length, resolved: events.reduce((n, e) => n + e.resolved, 0) },
    firstResponseSeconds: { bot: percentiles(bot), human: percentiles(human) },
    resolutionSeconds: percentiles(resolution),
    handoffRate: share(opened.filter((c) => c.handoffs > 0).length),
    answeredByBotShare: share(opened.filter((c) => c.firstBotAt !== null && c.firstHumanAt === null).length),
    byDay,
  };
}

/** Nearest-rank p50 and p90 (always a measured value) of the measured durations; null when there are none. */
export function percentiles(values: (number | null)[]): { p50: number | null; p90: number | null } {
  const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const rank = (p: number) => (sorted.length ? Math.round(sorted[Math.ceil(p * sorted.length) - 1] * 1000) / 1000 : null);
  return { p50: rank(0.5), p90: rank(0.9) };
}
