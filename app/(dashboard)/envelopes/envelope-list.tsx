"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api } from "../_lib/api";
import { clock } from "../_lib/time";
import type { Envelope } from "../_lib/types";
import { QueuePanel } from "./queue-panel";
import { StatusBadge } from "./status-badge";

/** Every envelope, newest first, filtered by status, address and due time. */
export function EnvelopeList() {
  const [status, setStatus] = useState("");
  const [address, setAddress] = useState("");
  const [scheduled, setScheduled] = useState(false);
  const params = new URLSearchParams({ ...(status ? { status } : {}), ...(address ? { address } : {}), ...(scheduled ? { scheduled: "true" } : {}) });
  const query = useQuery({
    queryKey: ["envelopes", status, address, scheduled],
    queryFn: () => api<{ envelopes: Envelope[] }>(`/envelopes?${params}`),
    refetchInterval: 3_000,
  });
  return (
    <>
      <h1>Envelopes</h1>
      <QueuePanel />
      <div className="row" style={{ marginBottom: 12 }}>
        <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)} style={{ maxWidth: 160 }}>
          <option value="">any status</option>
          <option value="pending">pending</option>
          <option value="processing">processing</option>
          <option value="done">done</option>
          <option value="failed">failed</option>
        </select>
        <input aria-label="Address" placeholder="address contains… (agent:main, channel:telegram:42)" value={address} onChange={(e) => setAddress(e.target.value)} style={{ maxWidth: 360 }} />
        <label className="row" style={{ margin: 0 }}>
          <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled(e.target.checked)} style={{ width: "auto" }} /> scheduled for later only
        </label>
      </div>
      {query.isLoading ? (
        <p className="muted">Loading…</p>
      ) : query.isError ? (
        <p className="error" role="alert">Could not load envelopes: {query.error.message}</p>
      ) : query.data!.envelopes.length === 0 ? (
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
            {query.data!.envelopes.map((e) => (
              <tr key={e.id} data-testid="envelope-row">
                <td>{e.id}</td>
                <td style={{ fontSize: 13 }}>
                  {e.from}
                  <br />→ {e.to}
                </td>
                <td style={{ maxWidth: 360, overflowWrap: "anywhere" }}>{e.text.slice(0, 160)}</td>
                <td>
                  <StatusBadge status={e.status} />
                  {e.lastDeliveryError && <div className="error" style={{ fontSize: 12 }}>{e.lastDeliveryError}</div>}
                </td>
                <td className="muted">{e.deliverAt ? clock(e.deliverAt) : "now"}</td>
                <td>
                  <Link href={`/envelopes/${e.id}`}>thread</Link>
                  {e.turn && (
                    <>
                      {" · "}
                      <Link href={`/turns/${e.turn.id}`}>prompt</Link>
                    </>
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
    </>
  );
}
