"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { api } from "../_lib/api";
import { clock } from "../_lib/time";
import type { ForkListItem } from "../_lib/types";
import { ForkControls } from "./fork-controls";
import { usePollInterval } from "../_lib/live-events";

const KIND: Record<string, string> = { active: "ok", running: "warn", done: "", failed: "err", exited: "", expired: "err" };

function Forks() {
  const conversationId = useSearchParams().get("conversationId");
  const poll = usePollInterval(3_000);
  const query = useQuery({
    queryKey: ["forks", conversationId],
    queryFn: () => api<{ forks: ForkListItem[] }>(`/forks${conversationId ? `?conversationId=${conversationId}` : ""}`),
    // Polling is the fallback: with the event stream open, events refetch this (usePollInterval).
    refetchInterval: poll,
  });
  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError)
    return (
      <p className="error" role="alert">
        Could not load forks: {query.error.message}
      </p>
    );
  const forks = query.data!.forks;
  if (forks.length === 0) return <div className="panel muted">No forks yet. Start one from a conversation (“Run in background”).</div>;
  return (
    <table data-testid="forks">
      <thead>
        <tr>
          <th>Fork</th>
          <th>Conversation</th>
          <th>Status</th>
          <th>Messages</th>
          <th>Activity</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {forks.map((f) => (
          <tr key={f.id} data-testid="fork-row" data-fork-id={f.id}>
            <td>
              <strong>#{f.id}</strong> {f.kind}
              {f.parentForkId && <span className="muted"> (resumes #{f.parentForkId})</span>}
              <div className="muted">{f.title}</div>
              {f.summary && <div className="muted">“{f.summary}”</div>}
            </td>
            <td>
              <Link href={`/conversations/${f.conversationId}`}>{f.conversation?.title ?? `#${f.conversationId}`}</Link>
            </td>
            <td>
              <span className={`badge ${KIND[f.status] ?? ""}`}>{f.status}</span>
              {f.exitStrategy && <div className="muted">{f.exitStrategy}</div>}
            </td>
            <td>{f._count?.messages ?? 0}</td>
            <td className="muted">
              started {clock(f.startedAt)} by {f.startedBy}
              <br />
              last {clock(f.lastActivityAt)}
            </td>
            <td>
              <ForkControls fork={f} anotherActive={Boolean(f.conversation?.activeForkId && f.conversation.activeForkId !== f.id)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every fork of the agent's sessions, with resume and exit. */
export function ForkList() {
  return (
    <>
      <h1>Forks</h1>
      <p className="muted">
        Background forks run tasks off the main session; a user's reply to their posts (or “Resume” here) opens an interactive fork that
        continues them.
      </p>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <Forks />
      </Suspense>
    </>
  );
}
