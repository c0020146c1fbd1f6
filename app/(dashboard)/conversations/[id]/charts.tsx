"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api } from "../../_lib/api";
import { Chart } from "../../_lib/chart";
import { timeRangeAtLeast, valueRangeFromZero } from "../../_lib/chart-scales";
import type { ConversationStats } from "../../_lib/types";

const USER = "#0b7285";
const AGENT = "#5f3dc4";
const DANGER = "#c92a2a";
const seconds = (iso: string) => Date.parse(iso) / 1000;

/**
 * Messages per hour over two days (stacked bars: users below, bot above) and
 * the agent's latency per turn (dots, red when it failed, dashed median), with
 * time and count/ms axes and a tooltip (uPlot, see _lib/chart.tsx).
 */
export function ConversationCharts({ conversationId }: { conversationId: number }) {
  const query = useQuery({
    queryKey: ["stats", conversationId],
    queryFn: () => api<ConversationStats>(`/conversations/${conversationId}/stats`),
    refetchInterval: 10_000,
  });
  const activity = useMemo(() => {
    const a = query.data?.activity ?? [];
    // Stacked by drawing the total first and the users' part over it.
    return [a.map((p) => seconds(p.at)), a.map((p) => p.inbound + p.outbound), a.map((p) => p.inbound)] as [number[], number[], number[]];
  }, [query.data]);
  const latency = useMemo(() => {
    const l = query.data?.latency ?? [];
    const p50 = query.data?.latencyP50 ?? null;
    // Several turns in one second would share an x: nudge them apart by a millisecond each.
    const xs = l.map((p, i) => seconds(p.at) + i / 1000);
    return [xs, l.map((p) => (p.failed ? null : p.ms)), l.map((p) => (p.failed ? p.ms : null)), l.map(() => p50)] as [
      number[],
      (number | null)[],
      (number | null)[],
      (number | null)[],
    ];
  }, [query.data]);
  if (!query.data) return null;
  const { activity: rows, latency: turns, latencyP50 } = query.data;

  return (
    <div className="row" style={{ gap: 24, marginBottom: 12, alignItems: "flex-start" }} data-testid="charts">
      <div className="chart-box">
        <Chart
          label="Messages per hour, last 48 hours"
          testId="activity-chart"
          data={activity}
          build={(lib) => ({
            scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
            axes: [{}, { label: "messages", size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }],
            legend: { show: false },
            series: [
              {},
              { label: "bot", fill: AGENT, stroke: AGENT, paths: lib.paths.bars!({ size: [0.9, 24] }), points: { show: false } },
              { label: "users", fill: USER, stroke: USER, paths: lib.paths.bars!({ size: [0.9, 24] }), points: { show: false } },
            ],
          })}
          tooltip={(i) => `${new Date(rows[i].at).toLocaleString()}: ${rows[i].inbound} from users, ${rows[i].outbound} from the bot`}
        />
        <figcaption className="muted">Activity, last 48 h (per hour; users · bot)</figcaption>
      </div>
      <div className="chart-box">
        <Chart
          label="Agent response latency per turn"
          testId="latency-chart"
          data={latency}
          build={() => ({
            // One turn alone would stretch the time axis over years: give it two minutes either side.
            scales: { x: { time: true, range: timeRangeAtLeast(240, "center") }, y: { range: valueRangeFromZero(100) } },
            axes: [{}, { label: "ms", size: 50 }],
            legend: { show: false },
            series: [
              {},
              { label: "latency", stroke: AGENT, width: 0, points: { show: true, size: 7, fill: AGENT } },
              { label: "failed", stroke: DANGER, width: 0, points: { show: true, size: 7, fill: DANGER } },
              { label: "median", stroke: "#9aa4b2", dash: [4, 3], width: 1, points: { show: false } },
            ],
          })}
          tooltip={(i) =>
            turns[i] ? `${new Date(turns[i].at).toLocaleString()}: ${turns[i].ms} ms${turns[i].failed ? " (failed)" : ""}` : ""
          }
        />
        <figcaption className="muted">
          Agent latency per turn{latencyP50 !== null ? ` · median ${latencyP50} ms` : " · no turns yet"}
        </figcaption>
      </div>
    </div>
  );
}
