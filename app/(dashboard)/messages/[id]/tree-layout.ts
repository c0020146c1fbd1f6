import { hierarchy, tree, type HierarchyPointNode } from "d3-hierarchy";
import type { ThreadMember } from "../../_lib/types";

export const NODE_W = 180;
export const NODE_H = 56;
const GAP_X = 24;
const GAP_Y = 40;

export type TreeNode = HierarchyPointNode<ThreadMember & { children?: ThreadMember[] }>;

/**
 * Lays a thread out as a tree (d3-hierarchy's tidy tree): root at the top,
 * replies below their target. Members whose target is outside the thread hang
 * under a virtual root, so a forest still draws as one picture.
 */
export function layoutThread(members: ThreadMember[]) {
  const ids = new Set(members.map((m) => m.id));
  const children = new Map<number, ThreadMember[]>();
  const roots: ThreadMember[] = [];
  for (const m of members) {
    if (m.replyToMessageId !== null && ids.has(m.replyToMessageId)) {
      const list = children.get(m.replyToMessageId) ?? [];
      list.push(m);
      children.set(m.replyToMessageId, list);
    } else roots.push(m);
  }
  const virtual = { id: 0, children: roots } as unknown as ThreadMember;
  const root = hierarchy<ThreadMember>(virtual, (d) => (d.id === 0 ? roots : children.get(d.id)));
  const laid = tree<ThreadMember>().nodeSize([NODE_W + GAP_X, NODE_H + GAP_Y])(root);
  const nodes = laid.descendants().filter((n) => n.data.id !== 0);
  const links = laid.links().filter((l) => l.source.data.id !== 0);
  let minX = Infinity;
  let maxX = -Infinity;
  let maxY = 0;
  for (const n of nodes) {
    minX = Math.min(minX, n.x);
    maxX = Math.max(maxX, n.x);
    maxY = Math.max(maxY, n.y);
  }
  const offsetX = -minX + NODE_W / 2 + 16;
  const offsetY = -(NODE_H + GAP_Y) + NODE_H / 2 + 16;
  return {
    nodes: nodes.map((n) => ({ data: n.data, x: n.x + offsetX, y: n.y + offsetY })),
    links: links.map((l) => ({ from: { x: l.source.x + offsetX, y: l.source.y + offsetY }, to: { x: l.target.x + offsetX, y: l.target.y + offsetY }, id: l.target.data.id })),
    width: (nodes.length ? maxX - minX : 0) + NODE_W + 32,
    height: maxY + offsetY + NODE_H + 32,
  };
}
