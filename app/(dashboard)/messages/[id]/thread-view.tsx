"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../_lib/api";
import { DeliveryFailure } from "../../_lib/delivery-failure";
import { clock } from "../../_lib/time";
import type { ThreadMember, ThreadResponse } from "../../_lib/types";
import { useForkActions } from "../../_lib/use-forks";
import { useReply } from "../../_lib/use-reply";
import { NODE_H, NODE_W, layoutThread } from "./tree-layout";

const COLORS: Record<string, string> = { user: "var(--user)", agent: "var(--agent)", operator: "var(--operator)", system: "var(--muted)" };
const MARGIN = 400;

/** The reply tree around a message, drawn with d3-hierarchy; only visible nodes render. */
export function ThreadView({ id }: { id: number }) {
  const query = useQuery({ queryKey: ["thread", id], queryFn: () => api<ThreadResponse>(`/messages/${id}/thread`), refetchInterval: 3_000 });
  const layout = useMemo(() => layoutThread(query.data?.members ?? []), [query.data]);
  const [selectedId, setSelectedId] = useState<number>(id);
  const selected = query.data?.members.find((m) => m.id === selectedId) ?? null;
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ left: 0, top: 0, width: 1200, height: 800 });

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const update = () => setView({ left: el.scrollLeft, top: el.scrollTop, width: el.clientWidth, height: el.clientHeight });
    update();
    el.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    return () => {
      el.removeEventListener("scroll", update);
      window.removeEventListener("resize", update);
    };
  }, [query.isSuccess]);

  // Bring the opened message into view once.
  const centered = useRef(false);
  useEffect(() => {
    const el = scroller.current;
    const node = layout.nodes.find((n) => n.data.id === id);
    if (!el || !node || centered.current) return;
    centered.current = true;
    el.scrollTo({ left: node.x - el.clientWidth / 2, top: node.y - el.clientHeight / 3 });
  }, [layout, id]);

  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError) return <p className="error" role="alert">Could not load the thread: {query.error.message}</p>;

  const visible = (x: number, y: number) =>
    x > view.left - MARGIN && x < view.left + view.width + MARGIN && y > view.top - MARGIN && y < view.top + view.height + MARGIN;
  const nodes = layout.nodes.filter((n) => visible(n.x, n.y));
  const links = layout.links.filter((l) => visible(l.from.x, l.from.y) || visible(l.to.x, l.to.y));

  return (
    <>
      <h1>Thread</h1>
      <p className="muted">
        {query.data!.members.length} message{query.data!.members.length === 1 ? "" : "s"} · colours: <span style={{ color: COLORS.user }}>user</span>,{" "}
        <span style={{ color: COLORS.agent }}>agent</span>, <span style={{ color: COLORS.operator }}>operator</span>; dashed = in a fork
      </p>
      <div className="grid2" style={{ gridTemplateColumns: "minmax(0, 2fr) minmax(280px, 1fr)" }}>
        <div className="tree" ref={scroller} style={{ overflow: "auto", position: "relative" }} data-testid="thread-tree">
          <svg width={layout.width} height={layout.height} role="tree" aria-label="Reply tree">
            {links.map((l) => (
              <path
                key={l.id}
                d={`M${l.from.x},${l.from.y + NODE_H / 2} C${l.from.x},${(l.from.y + l.to.y) / 2} ${l.to.x},${(l.from.y + l.to.y) / 2} ${l.to.x},${l.to.y - NODE_H / 2}`}
                fill="none"
                stroke="#c7cdd6"
              />
            ))}
            {nodes.map(({ data, x, y }) => (
              <g
                key={data.id}
                transform={`translate(${x - NODE_W / 2},${y - NODE_H / 2})`}
                onClick={() => setSelectedId(data.id)}
                onKeyDown={(e) => e.key === "Enter" && setSelectedId(data.id)}
                tabIndex={0}
                role="treeitem"
                aria-selected={data.id === selectedId}
                aria-label={`${data.senderName ?? data.senderKind}: ${data.text.slice(0, 60)}`}
                data-testid="tree-node"
                data-message-id={data.id}
                style={{ cursor: "pointer" }}
              >
                <rect
                  width={NODE_W}
                  height={NODE_H}
                  rx={8}
                  fill={data.id === selectedId ? "#eef2ff" : "#fff"}
                  stroke={COLORS[data.senderKind] ?? "#999"}
                  strokeWidth={data.id === selectedId ? 3 : 1.5}
                  strokeDasharray={data.forkId ? "5 3" : undefined}
                />
                <text x={10} y={20} fontSize={12} fontWeight={600} fill={COLORS[data.senderKind]}>
                  {(data.senderName ?? data.senderKind).slice(0, 22)}
                </text>
                <text x={10} y={40} fontSize={12} fill="#1d2330">
                  {data.text.length > 26 ? data.text.slice(0, 25) + "…" : data.text}
                </text>
              </g>
            ))}
          </svg>
        </div>
        <MessageDetails member={selected} conversationId={query.data!.members[0]?.conversationId} />
      </div>
    </>
  );
}

function ResumeFork({ forkId }: { forkId: number }) {
  const { resume } = useForkActions();
  return (
    <p className="row">
      <button type="button" onClick={() => resume.mutate(forkId)} disabled={resume.isPending}>
        Resume fork #{forkId}
      </button>
      {resume.isSuccess && <span className="muted" role="status">Fork #{resume.data.fork.id} is active: the next user message continues it.</span>}
      {resume.isError && <span className="error" role="alert">{resume.error.message}</span>}
    </p>
  );
}

function MessageDetails({ member, conversationId }: { member: ThreadMember | null; conversationId?: number }) {
  const [text, setText] = useState("");
  const reply = useReply(conversationId ?? 0);
  if (!member) return <div className="panel muted">Select a message.</div>;
  const turn = member.envelopes.find((e) => e.turn)?.turn;
  const failed = member.envelopes.find((e) => e.status === "failed");
  return (
    <div className="panel" data-testid="message-details">
      <div className="muted">
        {member.senderKind} · {clock(member.sentAt)} {member.forkId ? `· fork #${member.forkId}` : ""}
      </div>
      <h2 style={{ marginTop: 4 }}>{member.senderName ?? member.senderKind}</h2>
      <p style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>{member.text}</p>
      <p className="muted">
        Envelopes: {member.envelopes.map((e) => `#${e.id} ${e.status}`).join(", ") || "none"}
      </p>
      {failed && <DeliveryFailure envelope={failed} />}
      {turn && (
        <p>
          <Link href={`/turns/${turn.id}`}>Prompt inspector</Link>
        </p>
      )}
      {conversationId && (
        <p>
          <Link href={`/conversations/${conversationId}`}>Open conversation</Link>
        </p>
      )}
      {member.forkId && <ResumeFork forkId={member.forkId} />}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!text.trim()) return;
          await reply.mutateAsync({ messageId: member.id, text }).then(() => setText(""), () => {});
        }}
      >
        <label htmlFor="thread-reply">Reply to this message</label>
        <textarea id="thread-reply" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
        {reply.isError && <p className="error" role="alert">Not sent: {reply.error.message}</p>}
        {reply.data?.recorded === false && <p className="delivery-failure warn" role="alert">{reply.data.warning}</p>}
        {reply.isSuccess && reply.data.recorded && <p className="muted" role="status">Sent.</p>}
        <p>
          <button className="primary" type="submit" disabled={!text.trim() || reply.isPending}>
            {reply.isPending ? "Sending…" : "Send reply"}
          </button>
        </p>
      </form>
    </div>
  );
}
