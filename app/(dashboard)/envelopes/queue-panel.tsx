"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { api } from "../_lib/api";
import { Chart } from "../_lib/chart";
import { WHOLE_SECOND_INCRS, clockTicks, timeRangeAtLeast, valueRangeFromZero } from "../_lib/chart-scales";
import type { QueueInfo } from "../_lib/types";

const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);
/** Queue depth samples kept from the polls since the page opened (the API reports only the current depth). */
const DEPTH_SAMPLES = 200;

/**
 * The queue at a glance, so a backlog shows before users complain: turns waiting
 * and running, the oldest wait, the limits in force, the time to answer per
 * minute over the last hour (p50 and p99), and the queue depth since this page
 * opened. Charts: uPlot (_lib/chart.tsx).
 */
export function QueuePanel() {
  const query = useQuery({ queryKey: ["queue"], queryFn: () => api<QueueInfo>("/queue"), refetchInterval: 3_000 });
  const [depth, setDepth] = useState<{ at: number; turns: number; envelopes: number }[]>([]);
  useEffect(() => {
    if (!query.data) return;
    const { turns, envelopes } = query.data.waiting;
    setDepth((d) => [...d.slice(-(DEPTH_SAMPLES - 1)), { at: query.dataUpdatedAt / 1000, turns, envelopes }]);
  }, [query.data, query.dataUpdatedAt]);
  const answers = useMemo(() => {
    const t = query.data?.timeToAnswer ?? [];
    return [
      t.map((b) => Date.parse(b.at) / 1000),
      t.map((b) => (b.p50 === null ? null : b.p50 / 1000)),
      t.map((b) => (b.p99 === null ? null : b.p99 / 1000)),
    ] as [number[], (number | null)[], (number | null)[]];
  }, [query.data]);
  const depthData = useMemo(
    () => [depth.map((d) => d.at), depth.map((d) => d.turns), depth.map((d) => d.envelopes)] as [number[], number[], number[]],
    [depth],
  );
  if (!query.data) return null;
  const { waiting, runningTurns, timeToAnswer, limits, instance } = query.data;
  const latest = [...timeToAnswer].reverse().find((p) => p.n > 0);
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
          <dd data-testid="queue-model">
            {instance.model ? `${instance.model.active} in flight, ${instance.model.waiting} waiting` : "no model"}
            {instance.model?.pausedUntil && (
              <span className="error"> · rate-limited until {new Date(instance.model.pausedUntil).toLocaleTimeString()}</span>
            )}
            {instance.model?.refusingSince && (
              <span className="error" data-testid="queue-model-refusing">
                {" "}
                · every call refused since {new Date(instance.model.refusingSince).toLocaleString()} (after an hour, turns fail instead of
                waiting)
              </span>
            )}
          </dd>
          {instance.model && <ModelLimit model={instance.model} />}
          <dt className="muted">Burst debounce</dt>
          <dd>{limits.burstDebounceMs} ms</dd>
        </dl>
        <div className="chart-box">
          <Chart
            label="Time to answer per minute, last hour"
            testId="answer-chart"
            data={answers}
            build={() => ({
              // Room above the highest line: ending the axis at it drew that line on the plot's top edge.
              scales: { x: { time: true }, y: { range: valueRangeFromZero() } },
              axes: [{}, { label: "seconds", size: 44 }],
              legend: { show: false },
              series: [
                {},
                { label: "p50", stroke: "#5f3dc4", width: 2, spanGaps: false, points: { size: 4 } },
                { label: "p99", stroke: "#c92a2a", dash: [4, 3], width: 1, spanGaps: false },
              ],
            })}
            tooltip={(i) => {
              const b = timeToAnswer[i];
              return !b
                ? ""
                : b.n === 0
                  ? `${new Date(b.at).toLocaleTimeString()}: no answers`
                  : `${new Date(b.at).toLocaleTimeString()}: p50 ${seconds(b.p50!)}, p99 ${seconds(b.p99!)} over ${b.n} message${b.n === 1 ? "" : "s"}`;
            }}
          />
          <figcaption className="muted" data-testid="queue-latency">
            Time to answer per minute, last hour (message stored → answered): p50 solid, p99 dashed
            {latest ? ` · last minute with answers: p50 ${seconds(latest.p50!)}, p99 ${seconds(latest.p99!)}` : " · no answers yet"}
          </figcaption>
        </div>
        <div className="chart-box">
          <Chart
            label="Queue depth since this page opened"
            testId="depth-chart"
            data={depthData}
            build={() => ({
              // Samples 3 s apart: a few of them span seconds, and uPlot would tick in milliseconds (":59.300").
              // At least two minutes wide, ticked in whole seconds and minutes.
              scales: { x: { time: true, range: timeRangeAtLeast(120, "end") }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
              axes: [
                { incrs: WHOLE_SECOND_INCRS, values: clockTicks, space: 70 },
                { label: "waiting", size: 44, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000] },
              ],
              legend: { show: false },
              series: [
                {},
                { label: "turns", stroke: "#5f3dc4", width: 2, points: { show: false } },
                { label: "envelopes", stroke: "#0b7285", width: 1, dash: [4, 3], points: { show: false } },
              ],
            })}
            tooltip={(i) =>
              depth[i]
                ? `${new Date(depth[i].at * 1000).toLocaleTimeString()}: ${depth[i].turns} turns, ${depth[i].envelopes} envelopes waiting`
                : ""
            }
          />
          <figcaption className="muted">Queue depth, sampled every 3 s since this page opened (turns solid, envelopes dashed)</figcaption>
        </div>
      </div>
    </section>
  );
}

type ModelInfo = NonNullable<QueueInfo["instance"]["model"]>;
type LimitChange = ModelInfo["lastChange"];

const VERB: Record<LimitChange["reason"], string> = {
  start: "started at",
  ceiling: "held to the ceiling:",
  accepted: "raised",
  succeeded: "raised",
  rate_limited: "cut",
  overloaded: "cut",
  timeout: "cut",
  slow: "cut",
};

function describeChange(c: LimitChange) {
  const when = new Date(c.at).toLocaleTimeString();
  if (c.reason === "start") return `${when}: started at ${c.to}`;
  if (c.reason === "ceiling") return `${when}: ${c.from} → ${c.to}, ${c.detail}`;
  return `${when}: ${VERB[c.reason]} ${c.from} → ${c.to}, ${c.detail}`;
}

/**
 * The model-call limit adapts (lib/agent/adaptive-limit.ts): the operator sees where it
 * stands against the ceiling they set, and why it last moved, so a low limit explains itself.
 */
function ModelLimit({ model }: { model: ModelInfo }) {
  const backoffShown = model.lastBackoff && model.lastBackoff.at !== model.lastChange.at;
  return (
    <>
      <dt className="muted">Model-call limit</dt>
      <dd data-testid="queue-model-limit">
        {model.limit} of {model.ceiling} ({model.phase === "slow_start" ? "growing fast" : "growing slowly after a back-off"}
        {model.latencyMs ? `; latency ${seconds(model.latencyMs.recent)}, usual ${seconds(model.latencyMs.baseline)}` : ""})
        <div className="muted" data-testid="queue-model-limit-reason">
          {describeChange(model.lastChange)}
          {backoffShown && model.lastBackoff && <div>last back-off {describeChange(model.lastBackoff)}</div>}
        </div>
      </dd>
    </>
  );
}
