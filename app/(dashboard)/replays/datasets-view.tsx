"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api } from "../_lib/api";
import { usd } from "../_lib/money";
import type { Applied, DatasetList, RunReport } from "../_lib/types";
import { VariantForm, type ReplayBody } from "./variant-form";
import { ApplyOutcome } from "./apply-outcome";

type Dataset = DatasetList["datasets"][number];

/**
 * Datasets: many past turns replayed under one variant, to try a setting on real
 * traffic before it goes live. A dataset comes from turn ids or a conversation
 * (`?conversation=<id>` prefills it); a run shows its progress live, its per-turn
 * results and summary, can be compared with another run, and applied.
 */
export function DatasetsView({ initialConversation, initialDataset }: { initialConversation: string; initialDataset: number | null }) {
  const datasets = useQuery({ queryKey: ["datasets"], queryFn: () => api<DatasetList>("/datasets") });
  const [selected, setSelected] = useState<number | null>(initialDataset);
  const dataset = datasets.data?.datasets.find((d) => d.id === selected) ?? null;
  return (
    <>
      <h1>Replays</h1>
      <p className="muted">
        Replay many past turns with other instructions, another model or other context settings, and see what would have changed. Nothing is
        sent to any chat.
      </p>
      <NewDataset initialConversation={initialConversation} onCreated={setSelected} />
      <h2>Datasets</h2>
      {datasets.isLoading && <p className="muted">Loading…</p>}
      {datasets.isError && <p className="error">Could not load the datasets: {datasets.error.message}</p>}
      {datasets.data && datasets.data.datasets.length === 0 && <p className="muted">No datasets yet.</p>}
      <ul data-testid="datasets">
        {datasets.data?.datasets.map((d) => (
          <li key={d.id}>
            <button type="button" onClick={() => setSelected(d.id)} aria-pressed={d.id === selected}>
              {d.name}
            </button>{" "}
            <span className="muted">
              {d.turnIds.length} turn{d.turnIds.length === 1 ? "" : "s"} · {d.runs.length} run{d.runs.length === 1 ? "" : "s"}
            </span>
          </li>
        ))}
      </ul>
      {dataset && <DatasetPanel key={dataset.id} dataset={dataset} onDeleted={() => setSelected(null)} />}
    </>
  );
}

function NewDataset({ initialConversation, onCreated }: { initialConversation: string; onCreated: (id: number) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const [turnIds, setTurnIds] = useState("");
  const [conversation, setConversation] = useState(initialConversation);
  const create = useMutation({
    mutationFn: () => {
      const ids = turnIds
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number);
      return api<{ dataset: { id: number } }>("/datasets", {
        method: "POST",
        body: { name, ...(ids.length ? { turnIds: ids } : {}), ...(conversation ? { conversationId: Number(conversation) } : {}) },
      });
    },
    onSuccess: async ({ dataset }) => {
      await client.invalidateQueries({ queryKey: ["datasets"] });
      onCreated(dataset.id);
      setName("");
      setTurnIds("");
    },
  });
  return (
    <form
      className="panel row"
      style={{ flexWrap: "wrap", gap: 8 }}
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <strong>New dataset</strong>
      <input aria-label="Dataset name" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      <input aria-label="Turn ids" placeholder="turn ids, e.g. 12, 15, 20" value={turnIds} onChange={(e) => setTurnIds(e.target.value)} />
      <input
        aria-label="Conversation id"
        placeholder="or every turn of conversation #"
        value={conversation}
        onChange={(e) => setConversation(e.target.value)}
        inputMode="numeric"
      />
      <button type="submit" disabled={create.isPending}>
        Create dataset
      </button>
      {create.isError && (
        <span className="error" role="alert">
          {create.error.message}
        </span>
      )}
    </form>
  );
}

function DatasetPanel({ dataset, onDeleted }: { dataset: Dataset; onDeleted: () => void }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api(`/datasets/${dataset.id}`, { method: "DELETE" }),
    onSuccess: async () => {
      onDeleted();
      await client.invalidateQueries({ queryKey: ["datasets"] });
    },
  });
  const [runId, setRunId] = useState<number | null>(dataset.runs[0]?.id ?? null);
  const start = useMutation({
    mutationFn: (body: ReplayBody) => api<{ run: { id: number } }>(`/datasets/${dataset.id}/runs`, { method: "POST", body }),
    onSuccess: async ({ run }) => {
      setRunId(run.id);
      await client.invalidateQueries({ queryKey: ["datasets"] });
    },
  });
  return (
    <section data-testid="dataset-panel">
      <h2>
        {dataset.name} <span className="muted">({dataset.turnIds.length} turns)</span>
      </h2>
      <p>
        <button
          type="button"
          onClick={() => window.confirm(`Delete the dataset "${dataset.name}" with its runs?`) && remove.mutate()}
          disabled={remove.isPending}
        >
          Delete dataset
        </button>
      </p>
      <VariantForm
        submitLabel="Run dataset"
        busy={start.isPending}
        onSubmit={(body) => start.mutate(body)}
        of={{ datasetId: dataset.id }}
      />
      {start.isError && (
        <p className="error" role="alert">
          {start.error.message}
        </p>
      )}
      {dataset.runs.length > 0 && (
        <p className="row" style={{ flexWrap: "wrap" }}>
          <span className="muted">Runs:</span>
          {dataset.runs.map((r) => (
            <button key={r.id} type="button" onClick={() => setRunId(r.id)} aria-pressed={r.id === runId}>
              #{r.id} {r.mode}
            </button>
          ))}
        </p>
      )}
      {runId && (
        <RunView key={runId} datasetId={dataset.id} runId={runId} others={dataset.runs.map((r) => r.id).filter((id) => id !== runId)} />
      )}
    </section>
  );
}

function variantText(variant: Record<string, unknown>): string {
  const parts: string[] = [];
  const v = variant as { instructions?: string; model?: { provider: string; model: string }; settings?: Record<string, unknown> };
  if (v.instructions !== undefined) parts.push(`instructions "${v.instructions.slice(0, 60)}${v.instructions.length > 60 ? "…" : ""}"`);
  if (v.model) parts.push(`model ${v.model.provider}:${v.model.model}`);
  for (const [k, value] of Object.entries(v.settings ?? {})) parts.push(`${k} ${String(value)}`);
  // The variant's own changes: "no changes" read as a claim about the answers (beside "Answers changed: 2").
  return parts.length ? parts.join(" · ") : "settings unchanged";
}

function RunView({ datasetId, runId, others }: { datasetId: number; runId: number; others: number[] }) {
  const [compareTo, setCompareTo] = useState<number | null>(null);
  const report = useQuery({
    queryKey: ["run", datasetId, runId, compareTo],
    queryFn: () => api<RunReport>(`/datasets/${datasetId}/runs/${runId}${compareTo ? `?compareTo=${compareTo}` : ""}`),
    // Live progress while it runs.
    refetchInterval: (q) => (q.state.data?.run.status === "running" ? 1000 : false),
  });
  const apply = useMutation({ mutationFn: () => api<Applied>(`/datasets/${datasetId}/runs/${runId}/apply`, { method: "POST" }) });
  if (report.isLoading) return <p className="muted">Loading the run…</p>;
  if (report.isError) return <p className="error">Could not load the run: {report.error.message}</p>;
  const { run, summary, results, comparison } = report.data!;
  const finished = summary.done + summary.failed;
  return (
    <div data-testid="run-view">
      <h3>
        Run #{run.id} · {run.mode} · {variantText(run.variant)}
      </h3>
      <p data-testid="run-progress" role="status">
        {run.status === "running"
          ? `Running: ${finished} of ${summary.total} turns`
          : `${run.status}: ${finished} of ${summary.total} turns`}
        {summary.failed ? ` (${summary.failed} failed)` : ""}
      </p>
      <progress max={summary.total} value={finished} style={{ width: 240 }} />
      <dl className="turn-facts" data-testid="run-summary">
        <dt>Answers changed</dt>
        <dd data-testid="summary-changed">{summary.changed}</dd>
        <dt>Became silent</dt>
        <dd>{summary.becameSilent}</dd>
        <dt>Started replying</dt>
        <dd>{summary.startedReplying}</dd>
        <dt>Started handing off</dt>
        <dd>{summary.startedHandingOff}</dd>
        <dt>Stopped handing off</dt>
        <dd>{summary.stoppedHandingOff}</dd>
        <dt>Tokens (replay vs original)</dt>
        <dd>
          {summary.tokens.replay.input + summary.tokens.replay.output} vs {summary.tokens.original.input + summary.tokens.original.output}
        </dd>
        <dt>Average latency</dt>
        <dd>
          {summary.latencyMs.replayAverage ?? "–"} ms vs {summary.latencyMs.originalAverage ?? "–"} ms
        </dd>
        <dt>Cost</dt>
        <dd>
          {usd(summary.costUsd.replay)} vs {usd(summary.costUsd.original)}
        </dd>
      </dl>
      <p className="row">
        <button type="button" onClick={() => apply.mutate()} disabled={apply.isPending || run.status === "running"}>
          Apply these settings
        </button>
        {apply.isSuccess && <ApplyOutcome applied={apply.data} />}
        {apply.isError && (
          <span className="error" role="alert">
            {apply.error.message}
          </span>
        )}
        {others.length > 0 && (
          <label>
            Compare with{" "}
            <select
              aria-label="Compare with run"
              value={compareTo ?? ""}
              onChange={(e) => setCompareTo(e.target.value ? Number(e.target.value) : null)}
            >
              <option value="">—</option>
              {others.map((id) => (
                <option key={id} value={id}>
                  run #{id}
                </option>
              ))}
            </select>
          </label>
        )}
      </p>
      <table data-testid="run-results">
        <thead>
          <tr>
            <th>Turn</th>
            <th>Original answer</th>
            <th>Replay answer</th>
            {comparison && <th>Run #{comparison.runId}</th>}
            <th>Changed</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r) => {
            const theirs = comparison?.turns.find((t) => t.turnId === r.turnId);
            return (
              <tr key={r.replayId}>
                <td>
                  <Link href={`/turns/${r.turnId}`}>#{r.turnId}</Link>
                </td>
                <td>{r.original.text ?? <span className="muted">silent</span>}</td>
                <td>
                  {r.status === "failed" ? (
                    <span className="error">{r.error}</span>
                  ) : r.status === "running" ? (
                    <span className="muted">running…</span>
                  ) : (
                    (r.output?.text ?? <span className="muted">silent</span>)
                  )}
                  {r.output?.handoff ? ` · hands off: ${r.output.handoff}` : ""}
                </td>
                {comparison && <td>{theirs?.other?.text ?? <span className="muted">–</span>}</td>}
                <td>{r.answerChanged ? "yes" : ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
