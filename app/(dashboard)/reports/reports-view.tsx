"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { api } from "../_lib/api";
import { Chart } from "../_lib/chart";
import { useLabels } from "../_lib/labels";
import { useOperators } from "../_lib/sender";
import type { ConversationList, Report } from "../_lib/types";

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isDay = (v: string | null): v is string => v !== null && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));
const OPENED = "#1c7ed6";
const RESOLVED = "#2f9e44";
const HANDOFFS = "#e8590c";

const duration = (s: number | null) =>
  s === null ? "—" : s < 90 ? `${Math.round(s * 10) / 10} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 360) / 10} h`;
const percent = (v: number | null) => (v === null ? "—" : `${Math.round(v * 1000) / 10}%`);

/**
 * The team inbox over a range of UTC days: conversations opened and resolved, how fast
 * the bot and the operators answer, how long to resolve, how often a human is asked
 * for. The range, bot, operator and label live in the address, so a link reopens the same
 * report; "to" is a day included here (the API's `to` is the next midnight).
 */
export function ReportsView() {
  const router = useRouter();
  const params = useSearchParams();
  const to = isDay(params.get("to")) ? params.get("to")! : dayOf(Date.now());
  const fromParam = params.get("from");
  const from = isDay(fromParam) && fromParam <= to ? fromParam : dayOf(Date.parse(to) - 6 * DAY);
  const botId = params.get("botId") ?? "";
  const operatorId = params.get("operatorId") ?? "";
  const label = params.get("label") ?? "";

  const query = new URLSearchParams({ from, to: dayOf(Date.parse(to) + DAY) });
  if (botId) query.set("botId", botId);
  if (operatorId) query.set("operatorId", operatorId);
  if (label) query.set("label", label);
  const apiQuery = query.toString();

  const report = useQuery({ queryKey: ["reports", apiQuery], queryFn: () => api<Report>(`/reports?${apiQuery}`) });
  // The caller's bots, as the inbox lists them (an agent limited to some bots gets theirs).
  const bots = useQuery({ queryKey: ["report-bots"], queryFn: () => api<ConversationList>("/conversations?take=1"), staleTime: 60_000 });
  const operators = useOperators();
  const labels = useLabels();

  function set(changes: Record<string, string>) {
    const next = new URLSearchParams({
      from,
      to,
      ...(botId ? { botId } : {}),
      ...(operatorId ? { operatorId } : {}),
      ...(label ? { label } : {}),
    });
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    router.replace(`/reports?${next}`);
  }

  const data = report.data;
  const series = useMemo(() => {
    const days = data?.byDay ?? [];
    return [
      days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
      days.map((d) => d.opened),
      days.map((d) => d.resolved),
      days.map((d) => d.handoffs),
    ] as [number[], number[], number[], number[]];
  }, [data]);

  return (
    <>
      <h1>Reports</h1>
      <div className="row panel" style={{ gap: 12, flexWrap: "wrap" }}>
        <label>
          From{" "}
          <input type="date" aria-label="From" value={from} max={to} onChange={(e) => e.target.value && set({ from: e.target.value })} />
        </label>
        <label>
          To <input type="date" aria-label="To" value={to} min={from} onChange={(e) => e.target.value && set({ to: e.target.value })} />
        </label>
        <label>
          Bot{" "}
          <select aria-label="Bot" value={botId} onChange={(e) => set({ botId: e.target.value })}>
            <option value="">All bots</option>
            {(bots.data?.bots ?? []).map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Operator{" "}
          <select aria-label="Operator" value={operatorId} onChange={(e) => set({ operatorId: e.target.value })}>
            <option value="">Everyone</option>
            {(operators.data?.operators ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.displayName ?? o.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label{" "}
          <select aria-label="Label" value={label} onChange={(e) => set({ label: e.target.value })}>
            <option value="">Any label</option>
            {(labels.data?.labels ?? []).map((l) => (
              <option key={l.id} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <a href={`/api/v1/reports.csv?${apiQuery}`} download data-testid="report-csv">
          Download CSV
        </a>
      </div>
      {report.isError && (
        <p className="error" role="alert">
          Could not load the report: {report.error.message}
        </p>
      )}
      {data && (
        <dl
          className="panel report-figures"
          data-testid="report-figures"
          style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: "4px 16px" }}
        >
          <dt>Opened</dt>
          <dd data-testid="report-opened">{data.conversations.opened}</dd>
          <dt>Resolved</dt>
          <dd data-testid="report-resolved">{data.conversations.resolved}</dd>
          <dt>First response, bot (p50 / p90)</dt>
          <dd data-testid="report-first-bot">
            {duration(data.firstResponseSeconds.bot.p50)} / {duration(data.firstResponseSeconds.bot.p90)}
          </dd>
          <dt>First response, human (p50 / p90)</dt>
          <dd data-testid="report-first-human">
            {duration(data.firstResponseSeconds.human.p50)} / {duration(data.firstResponseSeconds.human.p90)}
          </dd>
          <dt>Resolution (p50 / p90)</dt>
          <dd data-testid="report-resolution">
            {duration(data.resolutionSeconds.p50)} / {duration(data.resolutionSeconds.p90)}
          </dd>
          <dt>Handoff rate</dt>
          <dd data-testid="report-handoff-rate">{percent(data.handoffRate)}</dd>
          <dt>Answered by the bot alone</dt>
          <dd data-testid="report-bot-share">{percent(data.answeredByBotShare)}</dd>
        </dl>
      )}
      {data && (
        <div className="chart-box" style={{ marginBottom: 12, width: "100%", maxWidth: 960 }}>
          <Chart
            label="Conversations opened, resolved and handed off per day"
            testId="report-chart"
            height={180}
            data={series}
            build={(lib) => ({
              scales: { x: { time: true }, n: { range: (_u, _min, max) => [0, Math.max(4, max * 1.1)] } },
              axes: [{}, { scale: "n", label: "conversations", size: 50 }],
              legend: { show: false },
              series: [
                {},
                {
                  label: "opened",
                  scale: "n",
                  stroke: OPENED,
                  fill: OPENED,
                  paths: lib.paths.bars!({ size: [0.6, 30] }),
                  points: { show: false },
                },
                { label: "resolved", scale: "n", stroke: RESOLVED, width: 2, points: { show: true } },
                { label: "handoffs", scale: "n", stroke: HANDOFFS, width: 2, dash: [4, 4], points: { show: true } },
              ],
            })}
            tooltip={(i) => {
              const d = data.byDay[i];
              return d ? `${d.day}: ${d.opened} opened · ${d.resolved} resolved · ${d.handoffs} handoffs` : "";
            }}
          />
          <figcaption className="muted">Opened (bars), resolved and handoffs (lines) per UTC day</figcaption>
        </div>
      )}
    </>
  );
}
