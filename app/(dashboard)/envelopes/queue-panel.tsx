"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../_lib/api";
import type { QueueInfo } from "../_lib/types";

const W = 480;
const H = 110;
const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

/**
 * The queue at a glance, so a backlog shows before users complain: turns waiting
 * and running, the oldest wait, the limits in force, and the time to answer per
 * minute over the last hour (p50 solid, p99 dashed). Plain SVG, like the
 * conversation charts.
 */
export function QueuePanel() {
  const query = useQuery({ queryKey: ["queue"], queryFn: () => api<QueueInfo>("/queue"), refetchInterval: 3_000 });
  if (!query.data) return null;
  const { waiting, runningTurns, timeToAnswer, limits, instance } = query.data;
  const points = timeToAnswer.map((b, i) => ({ ...b, i }));
  const max = Math.max(1000, ...points.map((p) => p.p99 ?? 0));
  const x = (i: number) => (i / Math.max(1, points.length - 1)) * (W - 8) + 4;
  const y = (ms: number) => H - 4 - (ms / max) * (H - 14);
  const line = (key: "p50" | "p99") =>
    points
      .filter((p) => p[key] !== null)
      .map((p) => `${x(p.i)},${y(p[key]!)}`)
      .join(" ");
  const latest = [...points].reverse().find((p) => p.n > 0);
  return (
    <section className="panel" style={{ marginBottom: 16 }} data-testid="queue-panel">
      <h2 style={{ marginTop: 0 }}>Queue</h2>
      <div className="row" style={{ gap: 24, alignItems: "flex-start" }}>
        <dl style={{ margin: 0, minWidth: 220 }}>
          <dt className="muted">Turns waiting</dt>
          <dd data-testid="queue-waiting">
            {waiting.turns} ({waiting.envelopes} envelope{waiting.envelopes === 1 ? "" : "s"})
          </dd>
          <dt className="muted">Oldest wait</dt>
          <dd data-testid="queue-oldest">{waiting.oldestWaitMs === null ? "—" : seconds(waiting.oldestWaitMs)}</dd>
          <dt className="muted">Turns running</dt>
          <dd>
            {runningTurns} (limit {limits.turnConcurrency} per instance)
          </dd>
          <dt className="muted">Model calls</dt>
          <dd>
            {instance.model ? `${instance.model.active} in flight, ${instance.model.waiting} waiting (limit ${instance.model.limit})` : "no model"}
            {instance.model?.pausedUntil && <span className="error"> · rate-limited until {new Date(instance.model.pausedUntil).toLocaleTimeString()}</span>}
          </dd>
          <dt className="muted">Burst debounce</dt>
          <dd>{limits.burstDebounceMs} ms</dd>
        </dl>
        <figure style={{ margin: 0 }}>
          <svg width={W} height={H} role="img" aria-label="Time to answer per minute, last hour" style={{ background: "#fff", border: "1px solid var(--line)", borderRadius: 8 }}>
            <polyline points={line("p99")} fill="none" stroke="var(--danger)" strokeDasharray="4 3" />
            <polyline points={line("p50")} fill="none" stroke="var(--agent)" strokeWidth={2} />
            {points
              .filter((p) => p.n > 0)
              .map((p) => (
                <circle key={p.at} cx={x(p.i)} cy={y(p.p50!)} r={2} fill="var(--agent)">
                  <title>{`${new Date(p.at).toLocaleTimeString()}: p50 ${seconds(p.p50!)}, p99 ${seconds(p.p99!)} over ${p.n} messages`}</title>
                </circle>
              ))}
          </svg>
          <figcaption className="muted" data-testid="queue-latency">
            Time to answer per minute, last hour (message stored → answered): p50 solid, p99 dashed
            {latest ? ` · last minute with answers: p50 ${seconds(latest.p50!)}, p99 ${seconds(latest.p99!)}` : " · no answers yet"}
          </figcaption>
        </figure>
      </div>
    </section>
  );
}
