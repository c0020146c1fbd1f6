import { csvCell } from "../../inbox/export";
import type { Report } from "./schema";

const headline = [
  "first response bot p50 (s)",
  "first response bot p90 (s)",
  "first response human p50 (s)",
  "first response human p90 (s)",
  "resolution p50 (s)",
  "resolution p90 (s)",
  "handoff rate",
  "answered by bot share",
] as const;

/**
 * The report as CSV (RFC 4180, CRLF, cells through the export's formula guard): one line
 * per UTC day, then a `total` line whose last columns carry the headline figures (empty
 * where nothing was measured), so the file is one table a spreadsheet opens as is.
 */
export function reportCsv(report: Report): string {
  const line = (cells: (string | number | null)[]) => cells.map(csvCell).join(",");
  const blank = headline.map(() => null);
  const { bot, human } = report.firstResponseSeconds;
  return `${[
    line(["day (UTC)", "opened", "resolved", "handoffs", ...headline]),
    ...report.byDay.map((d) => line([d.day, d.opened, d.resolved, d.handoffs, ...blank])),
    line([
      "total",
      report.conversations.opened,
      report.conversations.resolved,
      report.byDay.reduce((n, d) => n + d.handoffs, 0),
      bot.p50,
      bot.p90,
      human.p50,
      human.p90,
      report.resolutionSeconds.p50,
      report.resolutionSeconds.p90,
      report.handoffRate,
      report.answeredByBotShare,
    ]),
  ].join("\r\n")}\r\n`;
}
