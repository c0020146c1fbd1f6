"use client";

import { useMutation } from "@tanstack/react-query";
import { api } from "../_lib/api";
import { usd } from "../_lib/money";
import type { Applied, Replay, Turn } from "../_lib/types";
import { ApplyOutcome } from "./apply-outcome";

function answerOf(calls: { tool?: string; message: string }[]) {
  return {
    text: calls.find((c) => c.tool !== "handoff")?.message ?? null,
    handoff: calls.find((c) => c.tool === "handoff")?.message ?? null,
  };
}

const tokens = (input: number | null, output: number | null) =>
  input === null && output === null
    ? "not reported"
    : `${(input ?? 0).toLocaleString("en")} in · ${(output ?? 0).toLocaleString("en")} out`;

/** One side of the comparison: the answer (or silence), the handoff, tokens, latency and cost. */
function Side(props: {
  title: string;
  testId: string;
  text: string | null;
  handoff: string | null;
  input: number | null;
  output: number | null;
  latencyMs: number | null;
  costUsd: number | null;
  model: string | null;
}) {
  return (
    <section className="panel" data-testid={props.testId} style={{ flex: 1, minWidth: 0 }}>
      <h3 style={{ marginTop: 0 }}>{props.title}</h3>
      <div className="muted">{props.model}</div>
      {props.text === null ? (
        <p className="muted">No reply (silent).</p>
      ) : (
        <pre style={{ whiteSpace: "pre-wrap" }} data-testid="answer">
          {props.text}
        </pre>
      )}
      {props.handoff !== null && <p>Hands off: {props.handoff}</p>}
      <dl className="turn-facts">
        <dt>Tokens</dt>
        <dd>{tokens(props.input, props.output)}</dd>
        <dt>Latency</dt>
        <dd>{props.latencyMs === null ? "unknown" : `${props.latencyMs.toLocaleString("en")} ms`}</dd>
        <dt>Cost</dt>
        <dd>{props.costUsd === null ? "unknown" : usd(props.costUsd)}</dd>
      </dl>
    </section>
  );
}

/** A replay beside its original turn: both answers, tokens, latency and cost, the prompt as a line diff, and "Apply these settings". */
export function ReplayResult({ replay, turn, onDeleted }: { replay: Replay; turn: Turn; onDeleted?: () => void }) {
  const original = answerOf(turn.toolCalls);
  const remove = useMutation({ mutationFn: () => api(`/replays/${replay.id}`, { method: "DELETE" }), onSuccess: () => onDeleted?.() });
  const apply = useMutation({ mutationFn: () => api<Applied>(`/replays/${replay.id}/apply`, { method: "POST" }) });
  const changes = replay.diff.prompt.filter((l) => l.op !== "same").length;
  return (
    <div data-testid="replay-result" style={{ marginTop: 12 }}>
      <p>
        Replay #{replay.id} · {replay.mode} · {replay.status}
        {replay.diff.answerChanged ? " · the answer changed" : " · same answer"}
      </p>
      {replay.error && <p className="error">{replay.error}</p>}
      <div className="row" style={{ alignItems: "stretch", gap: 12 }}>
        <Side
          title="Original"
          testId="original-side"
          text={original.text}
          handoff={original.handoff}
          input={turn.inputTokens}
          output={turn.outputTokens}
          latencyMs={turn.latencyMs}
          costUsd={turn.costUsd}
          model={turn.model}
        />
        <Side
          title="Replay"
          testId="replay-side"
          text={replay.output?.text ?? null}
          handoff={replay.output?.handoff ?? null}
          input={replay.inputTokens}
          output={replay.outputTokens}
          latencyMs={replay.latencyMs}
          costUsd={replay.costUsd}
          model={replay.model}
        />
      </div>
      <h3>Prompt diff ({changes === 0 ? "no change" : `${changes} line${changes === 1 ? "" : "s"} changed`})</h3>
      <pre className="panel" data-testid="prompt-diff" style={{ whiteSpace: "pre-wrap", maxHeight: 480, overflow: "auto" }}>
        {replay.diff.prompt.map((line, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: a stored diff never changes; position is identity.
            key={i}
            data-op={line.op}
            className={`diff-${line.op}`}
            style={line.op === "added" ? { background: "#e6ffec" } : line.op === "removed" ? { background: "#ffebe9" } : undefined}
          >
            {line.op === "added" ? "+ " : line.op === "removed" ? "- " : "  "}
            {line.text}
          </div>
        ))}
      </pre>
      <p className="row">
        <button type="button" onClick={() => apply.mutate()} disabled={apply.isPending}>
          Apply these settings
        </button>
        {apply.isSuccess && <ApplyOutcome applied={apply.data} />}
        {apply.isError && (
          <span className="error" role="alert">
            {apply.error.message}
          </span>
        )}
        <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
          Delete replay
        </button>
      </p>
    </div>
  );
}
