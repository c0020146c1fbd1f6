"use client";

import { useQuery } from "@tanstack/react-query";
import { api } from "../../_lib/api";
import { clock } from "../../_lib/time";
import type { Turn } from "../../_lib/types";

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return JSON.stringify(content, null, 2);
}

/** The prompt inspector: the exact system prompt and messages the model saw. */
export function TurnView({ id }: { id: number }) {
  const query = useQuery({ queryKey: ["turn", id], queryFn: () => api<Turn>(`/turns/${id}`) });
  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError) return <p className="error" role="alert">Could not load the turn: {query.error.message}</p>;
  const turn = query.data!;
  return (
    <>
      <h1>Prompt inspector</h1>
      <p className="muted">
        Turn #{turn.id} · envelope #{turn.envelopeId} · {turn.model} · {clock(turn.createdAt)} · {turn.latencyMs ?? "?"} ms
        {turn.usage?.totalTokens ? ` · ${String(turn.usage.totalTokens)} tokens` : ""}
      </p>
      {turn.error && <p className="error">Model error: {turn.error}</p>}
      <h2>System prompt</h2>
      <pre className="panel" data-testid="system-prompt" style={{ whiteSpace: "pre-wrap" }}>{turn.system}</pre>
      <h2>Messages</h2>
      {turn.prompt.map((m, i) => (
        <div key={i} className="panel" style={{ marginBottom: 8 }} data-testid="prompt-message">
          <div className="muted">{m.role}</div>
          <pre style={{ whiteSpace: "pre-wrap", margin: 0 }}>{contentText(m.content)}</pre>
        </div>
      ))}
      <h2>Tool calls</h2>
      {turn.toolCalls.length === 0 ? (
        <p className="muted">The model did not call reply: nothing was sent.</p>
      ) : (
        turn.toolCalls.map((c, i) => (
          <div key={i} className="panel" style={{ marginBottom: 8 }}>
            <div className="muted">{c.tool ?? "reply"} → {JSON.stringify(c.outcome)}</div>
            <pre style={{ whiteSpace: "pre-wrap", margin: 0 }}>{c.message}</pre>
          </div>
        ))
      )}
    </>
  );
}
