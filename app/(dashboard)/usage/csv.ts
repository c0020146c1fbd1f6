import type { UsageReport } from "../_lib/types";

/** A CSV field: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
function field(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report's rows as CSV (RFC 4180, CRLF), one header line, the totals last; the replays' columns after the live turns'. */
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
    "replays",
    "replay_input_tokens",
    "replay_output_tokens",
    "replay_cost_usd",
    "unpriced_replays",
  ];
  const line = (first: (string | number | null)[], r: UsageReport["totals"], p: UsageReport["replays"]) =>
    [
      ...first,
      r.turns,
      r.inputTokens,
      r.cachedInputTokens,
      r.outputTokens,
      r.costUsd,
      r.unpricedTurns,
      p.replays,
      p.inputTokens,
      p.outputTokens,
      p.costUsd,
      p.unpricedReplays,
    ]
      .map(field)
      .join(",");
  const rows = report.rows.map((r) => line([r.key, ...(report.groupBy === "conversation" ? [r.label] : [])], r, r.replays));
  const total = line(["total", ...(report.groupBy === "conversation" ? [""] : [])], report.totals, report.replays);
  return `${[header.join(","), ...rows, total].join("\r\n")}\r\n`;
}
