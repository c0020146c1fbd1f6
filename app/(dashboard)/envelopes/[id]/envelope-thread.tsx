"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { api } from "../../_lib/api";
import { useSenderLabel } from "../../_lib/sender";
import { clock } from "../../_lib/time";
import type { Envelope, EnvelopeThread, ThreadEnvelope } from "../../_lib/types";
import { StatusBadge } from "../status-badge";
import { usePollInterval } from "../../_lib/live-events";

/** An envelope's chain up to its root and the tree below the root, indented by depth. */
export function EnvelopeThreadView({ id }: { id: number }) {
  const poll = usePollInterval(3_000);
  const query = useQuery({
    queryKey: ["envelope-thread", id],
    queryFn: () => api<EnvelopeThread>(`/envelopes/${id}/thread`),
    // Polling is the fallback: with the event stream open, events refetch this (usePollInterval).
    refetchInterval: poll,
  });
  const envelope = useQuery({ queryKey: ["envelope", id], queryFn: () => api<{ envelope: Envelope }>(`/envelopes/${id}`) });
  const { address: label } = useSenderLabel();
  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError)
    return (
      <p className="error" role="alert">
        Could not load the envelope: {query.error.message}
      </p>
    );
  const { tree } = query.data!;
  const children = new Map<number | null, ThreadEnvelope[]>();
  for (const e of tree) {
    const key = e.id === query.data!.root ? null : e.replyToEnvelopeId;
    children.set(key, [...(children.get(key) ?? []), e]);
  }
  const rows: { e: ThreadEnvelope; level: number }[] = [];
  const walk = (parent: number | null, level: number) => {
    for (const e of children.get(parent) ?? []) {
      rows.push({ e, level });
      if (rows.length < 2_000) walk(e.id, level + 1);
    }
  };
  walk(null, 0);
  const byId = new Map(tree.map((t) => [t.id, t]));
  const e = envelope.data?.envelope;
  return (
    <>
      <h1>Envelope #{id}</h1>
      {e && (
        <div className="panel" style={{ marginBottom: 16 }}>
          <div className="row">
            <StatusBadge status={e.status} /> <span title={e.from}>{label(e.from)}</span> → <span title={e.to}>{label(e.to)}</span> ·{" "}
            {clock(e.createdAt)} · attempts {e.attempts ?? 0}
            {e.turn && <Link href={`/turns/${e.turn.id}`}>prompt inspector</Link>}
          </div>
          <p style={{ whiteSpace: "pre-wrap" }}>{e.text}</p>
          {e.lastDeliveryError && <p className="error">Delivery error: {e.lastDeliveryError}</p>}
          <details>
            <summary className="muted">metadata</summary>
            <pre>{JSON.stringify(e.metadata, null, 2)}</pre>
          </details>
        </div>
      )}
      <h2>
        Thread ({tree.length} envelopes, chain depth {query.data!.chain.length})
      </h2>
      <div className="panel" data-testid="envelope-tree">
        {rows.map(({ e: row, level }) => (
          <div key={row.id} style={{ paddingLeft: Math.min(level, 30) * 18, fontWeight: row.id === id ? 700 : 400 }}>
            <Link href={`/envelopes/${row.id}`}>#{row.id}</Link> <StatusBadge status={row.status} title={row.lastDeliveryError} />{" "}
            <span title={row.from}>{label(row.from)}</span> → <span title={row.to}>{label(row.to)}</span>: {row.text.slice(0, 100)}
            {crossChat(row, byId.get(row.replyToEnvelopeId ?? 0)) && (
              <span
                className="badge"
                data-testid="cross-chat"
                title="The parent is in another chat: threaded here, sent without quoting it"
              >
                {" "}
                from another chat, not quoted
              </span>
            )}
          </div>
        ))}
        {tree.length > rows.length && <p className="muted">…{tree.length - rows.length} more not drawn</p>}
      </div>
    </>
  );
}

const chatOf = (e: ThreadEnvelope) => [e.from, e.to].find((address) => address.startsWith("channel:")) ?? null;

/** A reply into a chat whose parent belongs to another chat (sent without a native quote). */
function crossChat(e: ThreadEnvelope, parent: ThreadEnvelope | undefined): boolean {
  if (!parent) return false;
  const [mine, theirs] = [chatOf(e), chatOf(parent)];
  return mine !== null && theirs !== null && mine !== theirs;
}
