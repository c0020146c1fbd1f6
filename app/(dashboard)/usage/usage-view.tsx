"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { api } from "../_lib/api";
import { Chart } from "../_lib/chart";
import { spentText, tokens, usd } from "../_lib/money";
import type { UsageReport } from "../_lib/types";
import { usageCsv } from "./csv";

type GroupBy = UsageReport["groupBy"];
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);
const SPEND = "#5f3dc4";
const TOKENS = "#0b7285";

/**
 * What the bot costs: tokens and spend per day, model or conversation (the top
 * 20 by spend) over a range of days, with a chart of the days and a CSV of what
 * the table shows. Replays are shown apart: they cost money but answered no one.
 */
export function UsageView() {
  const [from, setFrom] = useState(daysAgo(29));
  const [to, setTo] = useState(today());
  const [groupBy, setGroupBy] = useState<GroupBy>("day");
  const query = useQuery({
    queryKey: ["usage", from, to, groupBy],
    queryFn: () => api<UsageReport>(`/usage?${new URLSearchParams({ from, to, groupBy })}`),
  });
  const days = useQuery({
    queryKey: ["usage", from, to, "day"],
    queryFn: () => api<UsageReport>(`/usage?${new URLSearchParams({ from, to, groupBy: "day" })}`),
  });
  const series = useMemo(() => {
    const rows = days.data?.rows ?? [];
    return [
      rows.map((r) => Date.parse(`${r.key}T00:00:00Z`) / 1000),
      rows.map((r) => r.costUsd ?? 0),
      rows.map((r) => r.inputTokens + r.outputTokens),
    ] as [number[], number[], number[]];
  }, [days.data]);

  function download() {
    if (!query.data) return;
    const blob = new Blob([usageCsv(query.data)], { type: "text/csv;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = `switchboard-usage-${groupBy}-${from}-to-${to}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    URL.revokeObjectURL(url);
  }

  const report = query.data;
  return (
    <>
      <h1>Usage</h1>
      <div className="row panel" style={{ gap: 12, flexWrap: "wrap" }}>
        <label>
          From <input type="date" aria-label="From" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} />
        </label>
        <label>
          To <input type="date" aria-label="To" value={to} min={from} onChange={(e) => e.target.value && setTo(e.target.value)} />
        </label>
        <div className="row" role="group" aria-label="Group by">
          {(["day", "model", "conversation"] as const).map((g) => (
            <button
              key={g}
              type="button"
              aria-pressed={groupBy === g}
              className={groupBy === g ? "primary" : undefined}
              onClick={() => setGroupBy(g)}
            >
              Per {g}
            </button>
          ))}
        </div>
        <button type="button" onClick={download} disabled={!report}>
          Download CSV
        </button>
      </div>
      {query.isError && (
        <p className="error" role="alert">
          Could not load usage: {query.error.message}
        </p>
      )}
      {report && (
        <p data-testid="usage-totals">
          <strong>{usd(report.totals.costUsd)}</strong> over {report.totals.turns.toLocaleString("en")} turns ·{" "}
          {tokens(report.totals.inputTokens)} input tokens ({tokens(report.totals.cachedInputTokens)} cached) ·{" "}
          {tokens(report.totals.outputTokens)} output tokens
          {report.totals.unpricedTurns > 0 && (
            <span className="muted" data-testid="unpriced-note">
              {" "}
              · {report.totals.unpricedTurns} turns of models without a price (cost unknown; add them under{" "}
              <Link href="/settings">Settings › Model prices</Link>)
            </span>
          )}
        </p>
      )}
      {report && report.replays.replays > 0 && (
        <p data-testid="usage-replays">
          Replays (not in the figures above): <strong>{spentText(report.replays.costUsd, report.replays.unpricedReplays)}</strong> over{" "}
          {report.replays.replays.toLocaleString("en")} {report.replays.replays === 1 ? "replay" : "replays"} ·{" "}
          {tokens(report.replays.inputTokens)} input tokens · {tokens(report.replays.outputTokens)} output tokens
          {report.replays.unpricedReplays > 0 && (
            <span className="muted"> · {report.replays.unpricedReplays} replays of models without a price</span>
          )}
        </p>
      )}
      {days.data && (
        <div className="chart-box" style={{ marginBottom: 12, width: "100%", maxWidth: 960 }}>
          <Chart
            label="Spend and tokens per day"
            testId="usage-chart"
            height={180}
            data={series}
            build={(lib) => ({
              scales: {
                x: { time: true },
                usd: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 0.01] },
                tok: { range: (_u, _min, max) => [0, Math.max(10, max * 1.1)] },
              },
              axes: [
                {},
                { scale: "usd", label: "US$", size: 60 },
                { scale: "tok", side: 1, label: "tokens", size: 60, grid: { show: false } },
              ],
              legend: { show: false },
              series: [
                {},
                {
                  label: "spend",
                  scale: "usd",
                  fill: SPEND,
                  stroke: SPEND,
                  paths: lib.paths.bars!({ size: [0.8, 40] }),
                  points: { show: false },
                },
                { label: "tokens", scale: "tok", stroke: TOKENS, width: 2, points: { show: false } },
              ],
            })}
            tooltip={(i) => {
              const r = days.data!.rows[i];
              return r ? `${r.key}: ${usd(r.costUsd)} · ${tokens(r.inputTokens + r.outputTokens)} tokens · ${r.turns} turns` : "";
            }}
          />
          <figcaption className="muted">Spend (bars) and tokens (line) per UTC day</figcaption>
        </div>
      )}
      {report && <UsageTable report={report} />}
    </>
  );
}

function UsageTable({ report }: { report: UsageReport }) {
  const rows = report.groupBy === "day" ? [...report.rows].reverse().filter((r) => r.turns > 0 || r.replays.replays > 0) : report.rows;
  if (rows.length === 0) return <p className="panel muted">No turns in this range.</p>;
  const withReplays = report.replays.replays > 0;
  return (
    <table data-testid="usage-table">
      <thead>
        <tr>
          <th>{report.groupBy === "day" ? "Day (UTC)" : report.groupBy === "model" ? "Model" : "Conversation (top 20 by spend)"}</th>
          <th>Turns</th>
          <th>Input tokens</th>
          <th>Cached</th>
          <th>Output tokens</th>
          <th>Spend</th>
          {withReplays && <th>Replays</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-testid="usage-row">
            <td>{report.groupBy === "conversation" ? <Link href={`/conversations/${r.key}`}>{r.label ?? `#${r.key}`}</Link> : r.key}</td>
            <td>{r.turns.toLocaleString("en")}</td>
            <td>{tokens(r.inputTokens)}</td>
            <td>{tokens(r.cachedInputTokens)}</td>
            <td>{tokens(r.outputTokens)}</td>
            <td>
              {usd(r.costUsd)}
              {r.unpricedTurns > 0 && <span className="muted"> (+{r.unpricedTurns} unpriced)</span>}
            </td>
            {withReplays && (
              <td data-testid="usage-row-replays">
                {r.replays.replays > 0
                  ? `${r.replays.replays.toLocaleString("en")} · ${spentText(r.replays.costUsd, r.replays.unpricedReplays)}`
                  : "—"}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
