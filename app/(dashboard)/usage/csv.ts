import type { UsageReport } from "../_lib/types";

/** A CSV field: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function field(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report's rows as CSV (RFC 4180, CRLF), one header line, the totals last. */
export function usageCsv(report: UsageReport): string {
  const key = report.groupBy === "day" ? "day" : report.groupBy === "model" ? "model" : "conversation_id";
  const header = [
    key,
    ...(report.groupBy === "conversation" ? ["conversation"] : []),
    "turns",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "cost_usd",
    "unpriced_turns",
  ];
  const line = (first: (string | number | null)[], r: UsageReport["totals"]) =>
    [...first, r.turns, r.inputTokens, r.cachedInputTokens, r.outputTokens, r.costUsd, r.unpricedTurns].map(field).join(",");
  const rows = report.rows.map((r) => line([r.key, ...(report.groupBy === "conversation" ? [r.label] : [])], r));
  const total = line(["total", ...(report.groupBy === "conversation" ? [""] : [])], report.totals);
  return `${[header.join(","), ...rows, total].join("\r\n")}\r\n`;
}
