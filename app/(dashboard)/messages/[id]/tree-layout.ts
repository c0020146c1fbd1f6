import { hierarchy, tree } from "d3-hierarchy";
import type { ThreadMember } from "../../_lib/types";

export const NODE_W = 220;
export const NODE_H = 76;
const GAP_X = 28;
const GAP_Y = 48;

/** Who replies to whom inside one thread; replies in the order they were sent. */
export type ThreadIndex = {
  byId: Map<number, ThreadMember>;
  children: Map<number, ThreadMember[]>;
  parent: Map<number, number>;
  roots: ThreadMember[];
};

/**
 * Members whose target is outside the thread are roots, so a forest still
 * reads as one picture (they hang under an invisible root in the layout).
 */
export function indexThread(members: ThreadMember[]): ThreadIndex {
  const byId = new Map(members.map((m) => [m.id, m]));
  const children = new Map<number, ThreadMember[]>();
  const parent = new Map<number, number>();
  const roots: ThreadMember[] = [];
  // The API sends them in this order already: sort only if not (ISO times compare as plain strings).
  const ordered = members.every((m, i) => i === 0 || bySentAt(members[i - 1], m) <= 0) ? members : [...members].sort(bySentAt);
  for (const m of ordered) {
    if (m.replyToMessageId !== null && byId.has(m.replyToMessageId)) {
      const list = children.get(m.replyToMessageId) ?? [];
      list.push(m);
      children.set(m.replyToMessageId, list);
      parent.set(m.id, m.replyToMessageId);
    } else roots.push(m);
  }
  return { byId, children, parent, roots };
}

function bySentAt(a: ThreadMember, b: ThreadMember) {
  return a.sentAt < b.sentAt ? -1 : a.sentAt > b.sentAt ? 1 : a.id - b.id;
}

/** How many messages sit below a node (its whole subtree, itself excluded). */
export function descendantCounts(index: ThreadIndex): Map<number, number> {
  const counts = new Map<number, number>();
  // Iterative post-order: a 5,000-deep chain must not overflow the stack.
  const stack: { id: number; done: boolean }[] = index.roots.map((r) => ({ id: r.id, done: false }));
  while (stack.length) {
    const top = stack.pop()!;
    const kids = index.children.get(top.id) ?? [];
    if (top.done)
      counts.set(
        top.id,
        kids.reduce((n, k) => n + 1 + (counts.get(k.id) ?? 0), 0),
      );
    else {
      stack.push({ id: top.id, done: true });
      for (const k of kids) stack.push({ id: k.id, done: false });
    }
  }
  return counts;
}

export type LaidNode = { member: ThreadMember; x: number; y: number; childCount: number; hidden: number };
export type LaidEdge = { id: string; source: number; target: number };

/**
 * Lays the visible part of a thread out as a tidy tree (d3-hierarchy): root at
 * the top, replies below their target. A collapsed node keeps its place and
 * hides its whole subtree; `hidden` says how many messages that is.
 */
export function layoutThread(index: ThreadIndex, collapsed: ReadonlySet<number> = new Set()) {
  // Only collapsed nodes show their count.
  const counts = collapsed.size ? descendantCounts(index) : new Map<number, number>();
  const virtual = { id: 0 } as ThreadMember;
  const root = hierarchy<ThreadMember>(virtual, (d) =>
    d.id === 0 ? index.roots : collapsed.has(d.id) ? undefined : index.children.get(d.id),
  );
  const laid = tree<ThreadMember>().nodeSize([NODE_W + GAP_X, NODE_H + GAP_Y])(root);
  const nodes: LaidNode[] = [];
  const edges: LaidEdge[] = [];
  for (const n of laid.descendants()) {
    if (n.data.id === 0) continue;
    const childCount = index.children.get(n.data.id)?.length ?? 0;
    // d3 puts the virtual root at depth 0: shift up one level so real roots sit at y = 0.
    nodes.push({
      member: n.data,
      x: n.x,
      y: n.y - (NODE_H + GAP_Y),
      childCount,
      hidden: collapsed.has(n.data.id) ? (counts.get(n.data.id) ?? 0) : 0,
    });
    if (n.parent && n.parent.data.id !== 0) edges.push({ id: `e${n.data.id}`, source: n.parent.data.id, target: n.data.id });
  }
  return { nodes, edges };
}

/** Where each laid-out message is: x its centre, y its top. */
export type Positions = Map<number, { x: number; y: number }>;

export function positionsOf(nodes: LaidNode[]): Positions {
  return new Map(nodes.map((n) => [n.member.id, { x: n.x, y: n.y }]));
}

/**
 * The edges whose box (parent's bottom to child's top) meets a rectangle in
 * layout coordinates: also the long ones whose two ends are both off it.
 */
export function edgesInView(
  edges: LaidEdge[],
  positions: Positions,
  view: { left: number; top: number; right: number; bottom: number },
): { source: { x: number; y: number }; target: { x: number; y: number } }[] {
  const out = [];
  for (const e of edges) {
    const s = positions.get(e.source);
    const t = positions.get(e.target);
    if (!s || !t) continue;
    const source = { x: s.x, y: s.y + NODE_H };
    if (source.y > view.bottom || t.y < view.top || Math.max(s.x, t.x) < view.left || Math.min(s.x, t.x) > view.right) continue;
    out.push({ source, target: t });
  }
  return out;
}

/** The ancestors of a message (root first), ending with the message itself. */
export function pathTo(index: ThreadIndex, id: number): ThreadMember[] {
  const path: ThreadMember[] = [];
  const seen = new Set<number>();
  for (let at: number | undefined = id; at !== undefined && !seen.has(at); at = index.parent.get(at)) {
    seen.add(at);
    const m = index.byId.get(at);
    if (m) path.push(m);
  }
  return path.reverse();
}

/** Siblings of a message: the other replies to the same target (roots are siblings of roots). */
export function siblingsOf(index: ThreadIndex, id: number): ThreadMember[] {
  const p = index.parent.get(id);
  return p === undefined ? index.roots : (index.children.get(p) ?? []);
}

export type BranchStep = { member: ThreadMember; position: number; siblings: ThreadMember[] };

/**
 * One root-to-leaf path through `tip`, read as a conversation: the ancestors
 * of `tip`, then below it the newest reply at each level (the branch that went
 * on last), each step with its siblings so the reader can switch branch there.
 */
export function branchThrough(index: ThreadIndex, tip: number): BranchStep[] {
  const path = pathTo(index, tip);
  const seen = new Set(path.map((m) => m.id));
  for (let kids = index.children.get(tip); kids?.length; ) {
    const next = kids[kids.length - 1];
    if (seen.has(next.id)) break;
    seen.add(next.id);
    path.push(next);
    kids = index.children.get(next.id);
  }
  return path.map((member) => {
    const siblings = siblingsOf(index, member.id);
    return { member, siblings, position: siblings.findIndex((s) => s.id === member.id) };
  });
}
