"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api } from "../../_lib/api";
import { Attachments } from "../../_lib/attachments";
import { clock } from "../../_lib/time";
import type { Turn } from "../../_lib/types";
import { usd } from "../../_lib/money";
import { ReplayPanel } from "./replay-panel";

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return JSON.stringify(content, null, 2);
}

/** A usage counter's name in words: `cachedInputTokens` → "Cached input tokens". */
const usageLabel = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/^./, (c) => c.toUpperCase());

/** The usage counters the AI SDK reports, in a fixed order; whatever else it sent follows. */
const USAGE_ORDER = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"];

/** The prompt inspector: the exact system prompt and messages the model saw, what it did, and the turns around it. */
export function TurnView({ id }: { id: number }) {
  const query = useQuery({ queryKey: ["turn", id], queryFn: () => api<Turn>(`/turns/${id}`) });
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError)
    return (
      <p className="error" role="alert">
        Could not load the turn: {query.error.message}
      </p>
    );
  const turn = query.data!;
  const usage = Object.entries(turn.usage ?? {})
    .filter(([, v]) => typeof v === "number")
    .sort(([a], [b]) => (USAGE_ORDER.indexOf(a) + 1 || 99) - (USAGE_ORDER.indexOf(b) + 1 || 99));
  const messageId = turn.envelope?.messageId;

  async function copy() {
    const { previousTurnId: _p, nextTurnId: _n, ...record } = turn;
    try {
      await navigator.clipboard.writeText(JSON.stringify(record, null, 2));
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }

  return (
    <>
      <h1>Prompt inspector</h1>
      <nav className="row" aria-label="Turns" style={{ marginBottom: 8 }}>
        {turn.previousTurnId ? (
          <Link href={`/turns/${turn.previousTurnId}`}>‹ Previous turn</Link>
        ) : (
          <span className="muted">‹ Previous turn</span>
        )}
        <span className="muted">Turn #{turn.id}</span>
        {turn.nextTurnId ? <Link href={`/turns/${turn.nextTurnId}`}>Next turn ›</Link> : <span className="muted">Next turn ›</span>}
        <span style={{ flex: 1 }} />
        <button type="button" onClick={copy}>
          Copy as JSON
        </button>
        {copied === "yes" && (
          <span className="muted" role="status">
            Copied.
          </span>
        )}
        {copied === "failed" && (
          <span className="error" role="alert">
            The browser refused the clipboard.
          </span>
        )}
      </nav>
      <p className="row">
        <Link href={messageId ? `/conversations/${turn.conversationId}?message=${messageId}` : `/conversations/${turn.conversationId}`}>
          Conversation
        </Link>
        {messageId && <Link href={`/messages/${messageId}`}>Message thread</Link>}
        <Link href={`/envelopes/${turn.envelopeId}`}>Envelope #{turn.envelopeId}</Link>
      </p>
      <dl className="turn-facts" data-testid="turn-facts">
        <dt>Bot</dt>
        <dd data-testid="turn-bot">
          {turn.bot
            ? `${turn.bot.name}${turn.bot.username ? ` (@${turn.bot.username.replace(/^@/, "")})` : ""} · ${turn.bot.platform}`
            : "unknown"}
        </dd>
        <dt>Model</dt>
        <dd data-testid="turn-model">{turn.model}</dd>
        <dt>When</dt>
        <dd>{clock(turn.createdAt)}</dd>
        <dt>Latency</dt>
        <dd data-testid="turn-latency">{turn.latencyMs === null ? "unknown" : `${turn.latencyMs.toLocaleString("en")} ms`}</dd>
        <dt>Cost</dt>
        <dd data-testid="turn-cost">
          {turn.costUsd === null ? "unknown (no price for this model in Settings › Model prices)" : usd(turn.costUsd)}
        </dd>
        {usage.length === 0 ? (
          <>
            <dt>Tokens</dt>
            <dd>not reported by the model</dd>
          </>
        ) : (
          usage.map(([k, v]) => (
            <div key={k} style={{ display: "contents" }}>
              <dt>{usageLabel(k)}</dt>
              <dd data-testid={`usage-${k}`}>{(v as number).toLocaleString("en")}</dd>
            </div>
          ))
        )}
      </dl>
      {turn.error && <p className="error">Model error: {turn.error}</p>}
      <ReplayPanel turn={turn} />
      <h2>System prompt</h2>
      <pre className="panel" data-testid="system-prompt" style={{ whiteSpace: "pre-wrap" }}>
        {turn.system}
      </pre>
      {turn.attachments.length > 0 && (
        <>
          <h2>Files of the message answered</h2>
          <Attachments items={turn.attachments} />
        </>
      )}
      <h2>Messages</h2>
      {turn.prompt.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a stored prompt never changes; position is identity.
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
          // biome-ignore lint/suspicious/noArrayIndexKey: stored tool calls never change; position is identity.
          <div key={i} className="panel" style={{ marginBottom: 8 }}>
            <div className="muted">
              {c.tool ?? "reply"} → {JSON.stringify(c.outcome)}
              {c.drafts ? ` · shown as it was written (${c.drafts} draft update${c.drafts === 1 ? "" : "s"})` : ""}
            </div>
            <pre style={{ whiteSpace: "pre-wrap", margin: 0 }}>{c.message}</pre>
          </div>
        ))
      )}
    </>
  );
}
