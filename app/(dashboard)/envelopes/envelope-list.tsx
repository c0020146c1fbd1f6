"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState } from "react";
import { api } from "../_lib/api";
import { InspectLink } from "../_lib/inspect-link";
import { addressFromShown, useOperators, useSenderLabel } from "../_lib/sender";
import { clock } from "../_lib/time";
import type { Envelope } from "../_lib/types";
import { EnvelopeCompose } from "./envelope-compose";
import { QueuePanel } from "./queue-panel";
import { StatusBadge } from "./status-badge";
import { usePollInterval } from "../_lib/live-events";

type Page = { envelopes: Envelope[]; nextBefore: number | null };

/** Every envelope, newest first, page by page (cursor), filtered by status, addresses, conversation and due time. */
export function EnvelopeList({ operator }: { operator: string }) {
  const [status, setStatus] = useState("");
  const [address, setAddress] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [conversation, setConversation] = useState("");
  const [scheduled, setScheduled] = useState(false);
  const conversationId = /^\d+$/.test(conversation.trim()) ? conversation.trim() : "";
  const { address: label } = useSenderLabel();
  const operators = useOperators().data?.operators ?? [];
  // Addresses seen on this page, so "@bot" or a chat's label typed into a filter finds its address.
  const seen = useRef(new Set<string>());
  const exact = (typed: string) => addressFromShown(typed, label, operators, [...seen.current]);
  const filters = {
    ...(status ? { status } : {}),
    ...(address ? { address } : {}),
    ...(from.trim() ? { from: exact(from) } : {}),
    ...(to.trim() ? { to: exact(to) } : {}),
    ...(conversationId ? { conversation: conversationId } : {}),
    ...(scheduled ? { scheduled: "true" } : {}),
  };
  const poll = usePollInterval(3_000);
  const query = useInfiniteQuery({
    queryKey: ["envelopes", filters],
    queryFn: ({ pageParam }) =>
      api<Page>(`/envelopes?${new URLSearchParams({ ...filters, ...(pageParam ? { before: String(pageParam) } : {}) })}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
    // Polling is the fallback: with the event stream open, events refetch this (usePollInterval).
    refetchInterval: poll,
  });
  const envelopes = query.data?.pages.flatMap((p) => p.envelopes) ?? [];
  for (const e of envelopes) {
    seen.current.add(e.from);
    seen.current.add(e.to);
  }
  return (
    <>
      <h1>Envelopes</h1>
      <QueuePanel />
      <EnvelopeCompose operator={operator} />
      <div className="row" style={{ marginBottom: 12 }} role="search" aria-label="Filter envelopes">
        <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)} style={{ maxWidth: 160 }}>
          <option value="">any status</option>
          <option value="pending">pending</option>
          <option value="processing">processing</option>
          <option value="done">done</option>
          <option value="failed">failed</option>
        </select>
        <input
          aria-label="Address"
          placeholder="address contains… (agent:main, channel:telegram:42)"
          value={address}
          onChange={(e) => setAddress(e.target.value)}
          style={{ maxWidth: 360 }}
        />
        <input
          aria-label="From"
          placeholder="from (name or address)"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          style={{ maxWidth: 200 }}
        />
        <input
          aria-label="To"
          placeholder="to (name or address)"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          style={{ maxWidth: 200 }}
        />
        <input
          aria-label="Conversation"
          placeholder="conversation #"
          inputMode="numeric"
          value={conversation}
          onChange={(e) => setConversation(e.target.value)}
          style={{ maxWidth: 150 }}
        />
        <label className="row" style={{ margin: 0 }}>
          <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.target.checked)} style={{ width: "auto" }} /> scheduled
          for later only
        </label>
      </div>
      {query.isLoading ? (
        <p className="muted">Loading…</p>
      ) : query.isError ? (
        <p className="error" role="alert">
          Could not load envelopes: {query.error.message}
        </p>
      ) : envelopes.length === 0 ? (
        <div className="panel muted">No envelopes match.</div>
      ) : (
        <table data-testid="envelopes">
          <thead>
            <tr>
              <th>#</th>
              <th>From → to</th>
              <th>Text</th>
              <th>Status</th>
              <th>Due</th>
              <th>Links</th>
            </tr>
          </thead>
          <tbody>
            {envelopes.map((e) => (
              <tr key={e.id} data-testid="envelope-row">
                <td>{e.id}</td>
                <td style={{ fontSize: 13 }}>
                  {/* Display names; the address (what the filters take) on hover. */}
                  <span title={e.from} data-testid="envelope-from">
                    {label(e.from)}
                  </span>
                  {label(e.from) !== e.from && <span className="muted"> {e.from}</span>}
                  <br />→{" "}
                  <span title={e.to} data-testid="envelope-to">
                    {label(e.to)}
                  </span>
                  {label(e.to) !== e.to && <span className="muted"> {e.to}</span>}
                </td>
                <td style={{ maxWidth: 360, overflowWrap: "anywhere" }} dir="auto">
                  {e.text.slice(0, 160)}
                </td>
                <td>
                  <StatusBadge status={e.status} />
                  {e.lastDeliveryError && (
                    <div className="error" style={{ fontSize: 12 }}>
                      {e.lastDeliveryError}
                    </div>
                  )}
                </td>
                <td className="muted" data-testid="envelope-due">
                  {dueLabel(e)}
                </td>
                <td>
                  <Link href={`/envelopes/${e.id}`}>thread</Link>
                  {e.turn ? (
                    <>
                      {" · "}
                      <Link href={`/turns/${e.turn.id}`}>prompt</Link>
                    </>
                  ) : (
                    e.messageId &&
                    e.from.startsWith("agent:") && (
                      <>
                        {" · "}
                        <InspectLink messageId={e.messageId}>prompt</InspectLink>
                      </>
                    )
                  )}
                  {e.conversationId && (
                    <>
                      {" · "}
                      <Link href={`/conversations/${e.conversationId}`}>chat</Link>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {query.hasNextPage && (
        <p>
          <button type="button" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : "Load older envelopes"}
          </button>
        </p>
      )}
      {envelopes.length > 0 && (
        <p className="muted" data-testid="envelope-count">
          {envelopes.length} shown{query.hasNextPage ? ", more older" : ""}
        </p>
      )}
    </>
  );
}

/** When it is (or was) due: a finished envelope was not waiting for anything, so no "now". */
function dueLabel(e: Envelope): string {
  if (e.status === "done" || e.status === "failed") return e.deliverAt ? `was due ${clock(e.deliverAt)}` : "—";
  return e.deliverAt ? clock(e.deliverAt) : "now";
}
