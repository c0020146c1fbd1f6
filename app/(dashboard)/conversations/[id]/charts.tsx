"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../../_lib/api";
import type { ConversationStats } from "../../_lib/types";

const W = 360;
const H = 90;

/**
 * Two small pictures: messages per hour over two days (stacked bars: users below,
 * bot above) and the agent's turn latency (one dot per turn, red when it failed,
 * dashed line at the median). Plain SVG: two charts do not justify a chart library.
 */
export function ConversationCharts({ conversationId }: { conversationId: number }) {
  const query = useQuery({ queryKey: ["stats", conversationId], queryFn: () => api<ConversationStats>(`/conversations/${conversationId}/stats`), refetchInterval: 10_000 });
  if (!query.data) return null;
  const { activity, latency, latencyP50 } = query.data;
  const maxCount = Math.max(1, ...activity.map((a) => a.inbound + a.outbound));
  const barW = W / activity.length;
  const maxMs = Math.max(1, ...latency.map((l) => l.ms));
  const x = (i: number) => (latency.length <= 1 ? W / 2 : (i / (latency.length - 1)) * (W - 8) + 4);
  const y = (ms: number) => H - 4 - (ms / maxMs) * (H - 12);
  return (
    <div className="row" style={{ gap: 24, marginBottom: 12, alignItems: "flex-start" }} data-testid="charts">
      <figure style={{ margin: 0 }}>
        <svg width={W} height={H} role="img" aria-label="Messages per hour, last 48 hours" style={{ background: "#fff", border: "1px solid var(--line)", borderRadius: 8 }}>
          {activity.map((a, i) => {
            const hIn = (a.inbound / maxCount) * (H - 10);
            const hOut = (a.outbound / maxCount) * (H - 10);
            return (
              <g key={a.at}>
                <title>{`${new Date(a.at).toLocaleString()}: ${a.inbound} in, ${a.outbound} out`}</title>
                <rect x={i * barW + 0.5} y={H - hIn} width={Math.max(barW - 1, 1)} height={hIn} fill="var(--user)" />
                <rect x={i * barW + 0.5} y={H - hIn - hOut} width={Math.max(barW - 1, 1)} height={hOut} fill="var(--agent)" />
              </g>
            );
          })}
        </svg>
        <figcaption className="muted">Activity, last 48 h (per hour; users · bot)</figcaption>
      </figure>
      <figure style={{ margin: 0 }}>
        <svg width={W} height={H} role="img" aria-label="Agent response latency per turn" style={{ background: "#fff", border: "1px solid var(--line)", borderRadius: 8 }}>
          {latencyP50 !== null && <line x1={0} x2={W} y1={y(latencyP50)} y2={y(latencyP50)} stroke="#9aa4b2" strokeDasharray="4 3" />}
          {latency.map((l, i) => (
            <circle key={l.at + i} cx={x(i)} cy={y(l.ms)} r={3} fill={l.failed ? "var(--danger)" : "var(--agent)"}>
              <title>{`${new Date(l.at).toLocaleString()}: ${l.ms} ms${l.failed ? " (failed)" : ""}`}</title>
            </circle>
          ))}
        </svg>
        <figcaption className="muted">
          Agent latency per turn{latencyP50 !== null ? ` · median ${latencyP50} ms` : " · no turns yet"}
        </figcaption>
      </figure>
    </div>
  );
}
