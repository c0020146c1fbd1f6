"use client";

import "@xyflow/react/dist/style.css";
import { useQuery } from "@tanstack/react-query";
import {
  Controls,
  Handle,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import Link from "next/link";
import { createContext, memo, useCallback, useContext, useMemo, useRef, useState } from "react";
import { api } from "../../_lib/api";
import { Attachments } from "../../_lib/attachments";
import { DeliveryFailure } from "../../_lib/delivery-failure";
import { senderDisplayName, useSenderLabel } from "../../_lib/sender";
import { InspectLink } from "../../_lib/inspect-link";
import { clock } from "../../_lib/time";
import type { ThreadMember, ThreadResponse } from "../../_lib/types";
import { useForkActions } from "../../_lib/use-forks";
import { useReply } from "../../_lib/use-reply";
import { usePollInterval } from "../../_lib/live-events";
import { NODE_H, NODE_W, branchThrough, indexThread, layoutThread, positionsOf, type BranchStep, type LaidNode } from "./tree-layout";
import { TreeEdges, TreeMiniMap, TreeSummary } from "./tree-overlays";

const COLORS: Record<string, string> = { user: "var(--user)", agent: "var(--agent)", operator: "var(--operator)", system: "var(--muted)" };
/** Above this many messages the tree opens at the message (zoom 1) instead of fitting everything. */
const FIT_ON_OPEN_MAX = 150;
/** Two lines of a node hold about this much; the rest is in the panel (the box clamps it too). */
const NODE_TEXT_MAX = 90;
// includeHiddenNodes: fit the nodes never rendered (off screen) too, by their declared size.
// The top padding keeps the fitted tree below the minimap (top right, 15 + 100 px), which covered a node.
const FIT_OPTIONS = {
  maxZoom: 1,
  padding: { top: "130px", right: "6%", bottom: "6%", left: "6%" },
  includeHiddenNodes: true,
} as const;
const NO_EDGES: Edge[] = [];
const minimapColor = (n: LaidNode) => COLORS[n.member.senderKind] ?? "#999";

const HANDLES = [
  { type: "target" as const, position: Position.Top, x: NODE_W / 2, y: 0 },
  { type: "source" as const, position: Position.Bottom, x: NODE_W / 2, y: NODE_H },
];

type MessageNodeData = { member: ThreadMember; childCount: number; hidden: number };
type MessageNode = Node<MessageNodeData, "message">;

/** What every node needs without being rebuilt when it changes: selection and the collapse toggle. */
const TreeState = createContext<{
  selectedId: number;
  collapsed: ReadonlySet<number>;
  select: (id: number) => void;
  toggle: (id: number) => void;
}>({
  selectedId: 0,
  collapsed: new Set(),
  select: () => {},
  toggle: () => {},
});

/** Set once per page: the agent as the bot's @username, operators by their display names. */
type SenderOf = (kind: string, name: string | null) => string;
const SenderLabels = createContext<SenderOf>((kind, name) => senderDisplayName(kind, name, null));
/** Per node: the page's labeller from context, not a query subscription per node (5,000 of them). */
function useMemberLabel() {
  const sender = useContext(SenderLabels);
  return (m: ThreadMember) => sender(m.senderKind, m.senderName);
}

/**
 * The reply tree around a message on a React Flow canvas (pan, zoom, fit,
 * minimap; only visible nodes render), a branch view that reads one
 * root-to-leaf path as a conversation, and a side panel (a bottom sheet on a
 * phone) with the selected message in full and its actions.
 */
export function ThreadView({ id }: { id: number }) {
  return (
    <ReactFlowProvider>
      <Thread id={id} />
    </ReactFlowProvider>
  );
}

function Thread({ id }: { id: number }) {
  const { sender } = useSenderLabel();
  const query = useQuery({
    queryKey: ["thread", id],
    queryFn: () => api<ThreadResponse>(`/messages/${id}/thread`),
    // Slow while the live event stream is open (it invalidates threads on new messages): a 5,000-message refetch is ~1 MB.
    refetchInterval: usePollInterval(3_000),
  });
  const members = query.data?.members;
  const index = useMemo(() => indexThread(members ?? []), [members]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const layout = useMemo(() => layoutThread(index, collapsed), [index, collapsed]);
  const [selectedId, setSelectedId] = useState(id);
  const [tip, setTip] = useState(id);
  const [mode, setMode] = useState<"tree" | "branch">("tree");
  const [sheetOpen, setSheetOpen] = useState(false);
  const flow = useReactFlow();

  const nodes = useMemo<MessageNode[]>(
    () =>
      layout.nodes.map((n) => ({
        id: String(n.member.id),
        type: "message",
        position: { x: n.x - NODE_W / 2, y: n.y },
        // Fixed size: nodes never rendered (off screen) still cull and fit correctly.
        width: NODE_W,
        height: NODE_H,
        // Known handles: without them React Flow renders every node once to measure them (5,000 nodes = seconds).
        handles: HANDLES,
        data: { member: n.member, childCount: n.childCount, hidden: n.hidden },
        draggable: false,
        connectable: false,
      })),
    [layout],
  );
  // Edges are drawn by TreeEdges, not handed to React Flow (see tree-overlays.tsx).
  const positions = useMemo(() => positionsOf(layout.nodes), [layout]);

  const select = useCallback((next: number) => {
    setSelectedId(next);
    setSheetOpen(true);
  }, []);
  const toggle = useCallback((target: number) => {
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (!next.delete(target)) next.add(target);
      return next;
    });
  }, []);
  const state = useMemo(() => ({ selectedId, collapsed, select, toggle }), [selectedId, collapsed, select, toggle]);

  // Open at the message: everything for a small tree, the message itself at zoom 1 for a big one.
  const opened = useRef(false);
  const onInit = useCallback(() => {
    if (opened.current || !members) return;
    opened.current = true;
    const node = layout.nodes.find((n) => n.member.id === id);
    // A small tree is fitted by React Flow's own fitView prop (once its nodes are in); a big one opens at the message.
    if (members.length > FIT_ON_OPEN_MAX && node) void flow.setCenter(node.x, node.y + NODE_H * 2, { zoom: 1 });
  }, [flow, layout, members, id]);

  const showInTree = useCallback(
    (target: number) => {
      setMode("tree");
      const node = layout.nodes.find((n) => n.member.id === target);
      if (node)
        requestAnimationFrame(
          () => void flow.setCenter(node.x, node.y + NODE_H / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 300 }),
        );
    },
    [flow, layout],
  );

  if (query.isLoading) return <p className="muted">Loading…</p>;
  if (query.isError)
    return (
      <p className="error" role="alert">
        Could not load the thread: {query.error.message}
      </p>
    );

  const count = members!.length;
  const selected = index.byId.get(selectedId) ?? null;
  return (
    <SenderLabels.Provider value={sender}>
      <h1>Thread</h1>
      <div className="row thread-toolbar">
        <div role="tablist" aria-label="View" className="row">
          <button
            type="button"
            role="tab"
            aria-selected={mode === "tree"}
            className={mode === "tree" ? "primary" : undefined}
            onClick={() => setMode("tree")}
          >
            Tree
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === "branch"}
            className={mode === "branch" ? "primary" : undefined}
            onClick={() => {
              setTip(selectedId);
              setMode("branch");
            }}
          >
            Branch
          </button>
        </div>
        {mode === "tree" && (
          <>
            <button type="button" onClick={() => setCollapsed(new Set())} disabled={collapsed.size === 0}>
              Expand all
            </button>
            <span className="muted">
              {count} message{count === 1 ? "" : "s"} · <span style={{ color: COLORS.user }}>user</span>,{" "}
              <span style={{ color: COLORS.agent }}>agent</span>, <span style={{ color: COLORS.operator }}>operator</span>; dashed = in a
              fork
            </span>
          </>
        )}
      </div>
      <div className="thread-layout">
        <TreeState.Provider value={state}>
          {mode === "tree" ? (
            <div className="tree" data-testid="thread-tree" role="tree" aria-label="Reply tree">
              <ReactFlow<MessageNode, Edge>
                nodes={nodes}
                edges={NO_EDGES}
                nodeTypes={nodeTypes}
                onInit={onInit}
                fitView={count <= FIT_ON_OPEN_MAX}
                fitViewOptions={FIT_OPTIONS}
                onNodeClick={(_, node) => select(Number(node.id))}
                onlyRenderVisibleElements
                nodesDraggable={false}
                nodesConnectable={false}
                edgesFocusable={false}
                nodesFocusable={false}
                minZoom={0.05}
                maxZoom={2}
              >
                <TreeEdges edges={layout.edges} positions={positions} />
                <Controls showInteractive={false} fitViewOptions={FIT_OPTIONS} />
                {/* Top right: a tree is narrow at the top (the root), so the minimap hides the least there. */}
                <TreeMiniMap nodes={layout.nodes} colorOf={minimapColor} />
                <TreeSummary nodes={layout.nodes} edges={layout.edges} />
              </ReactFlow>
            </div>
          ) : (
            <BranchView
              steps={branchThrough(index, tip)}
              selectedId={selectedId}
              onSelect={select}
              onSwitch={(to) => {
                setTip(to);
                select(to);
              }}
              onShowInTree={showInTree}
            />
          )}
        </TreeState.Provider>
        <aside className={`thread-panel${sheetOpen ? " open" : ""}`} aria-label="Selected message">
          <button type="button" className="sheet-close" aria-label="Close details" onClick={() => setSheetOpen(false)}>
            ×
          </button>
          <MessageDetails key={selected?.id} member={selected} onShowInTree={mode === "branch" ? showInTree : undefined} />
        </aside>
      </div>
    </SenderLabels.Provider>
  );
}

/** One message in the tree: sender, two lines of text, and a collapse toggle when it has replies. */
const MessageNodeView = memo(function MessageNodeView({ data }: NodeProps<MessageNode>) {
  const { selectedId, collapsed, select, toggle } = useContext(TreeState);
  const senderLabel = useMemberLabel();
  const m = data.member;
  const isSelected = m.id === selectedId;
  const isCollapsed = collapsed.has(m.id);
  return (
    <div
      className={`tree-node${isSelected ? " selected" : ""}${m.forkId ? " in-fork" : ""}`}
      style={{ borderColor: COLORS[m.senderKind] ?? "#999" }}
      role="treeitem"
      aria-selected={isSelected}
      aria-expanded={data.childCount ? !isCollapsed : undefined}
      aria-label={`${senderLabel(m)}: ${m.text.slice(0, 60)}`}
      tabIndex={0}
      onKeyDown={(e) => e.key === "Enter" && select(m.id)}
      data-testid="tree-node"
      data-message-id={m.id}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="tree-handle" />
      <div className="tree-node-sender" style={{ color: COLORS[m.senderKind] }}>
        {senderLabel(m)}
      </div>
      <div className="tree-node-text" dir="auto">
        {m.text.length > NODE_TEXT_MAX ? `${m.text.slice(0, NODE_TEXT_MAX)}…` : m.text}
        {/* A node's size is laid out from its text: its files are one short line, shown whole in the details. */}
        {m.attachments.length > 0 && <span className="muted"> 📎 {m.attachments.map((a) => a.kind.replace("_", " ")).join(", ")}</span>}
      </div>
      {data.childCount > 0 && (
        <button
          type="button"
          className="tree-node-toggle nodrag nopan"
          aria-label={isCollapsed ? `Expand ${data.hidden} replies` : "Collapse replies"}
          onClick={(e) => {
            e.stopPropagation();
            toggle(m.id);
          }}
        >
          {isCollapsed ? `+${data.hidden}` : "−"}
        </button>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="tree-handle" />
    </div>
  );
});
const nodeTypes = { message: MessageNodeView };

/** One root-to-leaf path as a conversation, with `‹ 2/5 ›` at every fork point. */
function BranchView({
  steps,
  selectedId,
  onSelect,
  onSwitch,
  onShowInTree,
}: {
  steps: BranchStep[];
  selectedId: number;
  onSelect: (id: number) => void;
  onSwitch: (id: number) => void;
  onShowInTree: (id: number) => void;
}) {
  const senderLabel = useMemberLabel();
  return (
    <div className="timeline branch-view" data-testid="branch-view">
      {steps.map(({ member: m, siblings, position }) => (
        // biome-ignore lint/a11y/noStaticElementInteractions: a mouse shortcut to select the step; keyboard users have the step's buttons and the tree.
        // biome-ignore lint/a11y/useKeyWithClickEvents: as above.
        <div
          key={m.id}
          className={`msg ${m.senderKind}${m.id === selectedId ? " selected" : ""}`}
          data-testid="branch-step"
          data-message-id={m.id}
          onClick={() => onSelect(m.id)}
        >
          <div className="meta">
            <strong>{senderLabel(m)}</strong>
            <span>{clock(m.sentAt)}</span>
            {siblings.length > 1 && (
              <span className="sibling-switcher" role="group" aria-label="Branches here">
                <button
                  type="button"
                  aria-label="Previous branch"
                  disabled={position === 0}
                  onClick={(e) => {
                    e.stopPropagation();
                    onSwitch(siblings[position - 1].id);
                  }}
                >
                  ‹
                </button>
                <span>
                  {position + 1}/{siblings.length}
                </span>
                <button
                  type="button"
                  aria-label="Next branch"
                  disabled={position === siblings.length - 1}
                  onClick={(e) => {
                    e.stopPropagation();
                    onSwitch(siblings[position + 1].id);
                  }}
                >
                  ›
                </button>
              </span>
            )}
            <button
              type="button"
              className="link-button"
              onClick={(e) => {
                e.stopPropagation();
                onShowInTree(m.id);
              }}
            >
              show in tree
            </button>
          </div>
          <div className="text" dir="auto">
            {m.text}
          </div>
        </div>
      ))}
    </div>
  );
}

function ResumeFork({ forkId }: { forkId: number }) {
  const { resume } = useForkActions();
  return (
    <p className="row">
      <button type="button" onClick={() => resume.mutate(forkId)} disabled={resume.isPending}>
        Resume fork #{forkId}
      </button>
      {resume.isSuccess && (
        <span className="muted" role="status">
          Fork #{resume.data.fork.id} is active: the next user message continues it.
        </span>
      )}
      {resume.isError && (
        <span className="error" role="alert">
          {resume.error.message}
        </span>
      )}
    </p>
  );
}

function MessageDetails({ member, onShowInTree }: { member: ThreadMember | null; onShowInTree?: (id: number) => void }) {
  const [text, setText] = useState("");
  const reply = useReply(member?.conversationId ?? 0);
  const senderLabel = useMemberLabel();
  if (!member) return <div className="panel muted">Select a message.</div>;
  const turn = member.envelopes.find((e) => e.turn)?.turn;
  const failed = member.envelopes.find((e) => e.status === "failed");
  return (
    <div className="panel" data-testid="message-details">
      <div className="muted">
        {member.senderKind} · {clock(member.sentAt)} {member.forkId ? `· fork #${member.forkId}` : ""}
      </div>
      <h2 style={{ marginTop: 4 }}>{senderLabel(member)}</h2>
      <p style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="message-full-text" dir="auto">
        {member.text}
      </p>
      <Attachments items={member.attachments} />
      <p className="muted">Envelopes: {member.envelopes.map((e) => `#${e.id} ${e.status}`).join(", ") || "none"}</p>
      {failed && <DeliveryFailure envelope={failed} />}
      <p className="row">
        <Link href={`/conversations/${member.conversationId}?message=${member.id}`}>Open in timeline</Link>
        {turn ? (
          <Link href={`/turns/${turn.id}`}>Prompt inspector</Link>
        ) : (
          member.senderKind === "agent" && <InspectLink messageId={member.id} />
        )}
        {onShowInTree && (
          <button type="button" className="link-button" onClick={() => onShowInTree(member.id)}>
            Show in tree
          </button>
        )}
      </p>
      {member.forkId && <ResumeFork forkId={member.forkId} />}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!text.trim()) return;
          await reply.mutateAsync({ messageId: member.id, text }).then(
            () => setText(""),
            () => {},
          );
        }}
      >
        <label htmlFor="thread-reply">Reply to this message</label>
        <textarea id="thread-reply" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
        {reply.isError && (
          <p className="error" role="alert">
            Not sent: {reply.error.message}
          </p>
        )}
        {reply.data?.recorded === false && (
          <p className="delivery-failure warn" role="alert">
            {reply.data.warning}
          </p>
        )}
        {reply.isSuccess && reply.data.recorded && (
          <p className="muted" role="status">
            Sent.
          </p>
        )}
        <p>
          <button className="primary" type="submit" disabled={!text.trim() || reply.isPending}>
            {reply.isPending ? "Sending…" : "Send reply"}
          </button>
        </p>
      </form>
    </div>
  );
}
