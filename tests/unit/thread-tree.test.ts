import { describe, expect, it } from "vitest";
import type { ThreadMember } from "../../app/(dashboard)/_lib/types";
import {
  NODE_H,
  branchThrough,
  descendantCounts,
  edgesInView,
  indexThread,
  layoutThread,
  positionsOf,
} from "../../app/(dashboard)/messages/[id]/tree-layout";
import { senderDisplayName } from "../../app/(dashboard)/_lib/sender";

const member = (id: number, replyTo: number | null): ThreadMember => ({
  id,
  conversationId: 1,
  direction: "inbound",
  senderKind: "user",
  senderName: `u${id}`,
  text: `message ${id}`,
  sentAt: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
  replyToMessageId: replyTo,
  forkId: null,
  threadId: 1,
  envelopes: [],
  attachments: [],
});

//      1
//    / | \
//   2  3  4
//  / \     \
// 5   6     7
const members = [member(1, null), member(2, 1), member(3, 1), member(4, 1), member(5, 2), member(6, 2), member(7, 4)];

describe("reply tree", () => {
  it("counts every message below a node", () => {
    const counts = descendantCounts(indexThread(members));
    expect(counts.get(1)).toBe(6);
    expect(counts.get(2)).toBe(2);
    expect(counts.get(5)).toBe(0);
  });

  it("collapsing a node hides its subtree and says how many", () => {
    const index = indexThread(members);
    const all = layoutThread(index);
    expect(all.nodes).toHaveLength(7);
    expect(all.edges).toHaveLength(6);
    const folded = layoutThread(index, new Set([2]));
    expect(folded.nodes.map((n) => n.member.id).sort()).toEqual([1, 2, 3, 4, 7]);
    expect(folded.nodes.find((n) => n.member.id === 2)).toMatchObject({ hidden: 2, childCount: 2 });
    expect(folded.edges.some((e) => e.source === 2)).toBe(false);
  });

  it("lays the root at the top and children a level below, without overlap", () => {
    const { nodes } = layoutThread(indexThread(members));
    const y = (id: number) => nodes.find((n) => n.member.id === id)!.y;
    expect(y(1)).toBe(0);
    expect(y(2)).toBeGreaterThan(y(1));
    expect(y(5)).toBeGreaterThan(y(2));
    const level = nodes
      .filter((n) => n.y === y(2))
      .map((n) => n.x)
      .sort((a, b) => a - b);
    for (let i = 1; i < level.length; i++) expect(level[i] - level[i - 1]).toBeGreaterThanOrEqual(220);
  });

  it("a branch runs from the root through the tip to the newest leaf, with siblings at each fork", () => {
    const index = indexThread(members);
    const branch = branchThrough(index, 2);
    expect(branch.map((s) => s.member.id)).toEqual([1, 2, 6]);
    expect(branch[1]).toMatchObject({ position: 0 });
    expect(branch[1].siblings.map((s) => s.id)).toEqual([2, 3, 4]);
    expect(branch[2]).toMatchObject({ position: 1 });
    expect(branchThrough(index, 4).map((s) => s.member.id)).toEqual([1, 4, 7]);
  });

  it("orders replies by time whatever order the members come in", () => {
    const shuffled = indexThread([members[4], members[2], members[0], members[6], members[3], members[1], members[5]]);
    expect(shuffled.children.get(1)!.map((m) => m.id)).toEqual([2, 3, 4]);
    expect(shuffled.children.get(2)!.map((m) => m.id)).toEqual([5, 6]);
    expect(shuffled.roots.map((m) => m.id)).toEqual([1]);
  });

  it("draws the edges that cross a view, also those whose two ends are off it", () => {
    const { nodes, edges } = layoutThread(indexThread(members));
    const at = positionsOf(nodes);
    const all = { left: -1e6, top: -1e6, right: 1e6, bottom: 1e6 };
    expect(edgesInView(edges, at, all)).toHaveLength(6);
    // A thin strip between the root's level and its children's, left of the root and right of
    // its leftmost child: only the edge from 1 to 2 passes through it.
    const [one, two] = [at.get(1)!, at.get(2)!];
    const strip = { left: two.x + 1, right: one.x - 1, top: one.y + NODE_H + 1, bottom: two.y - 1 };
    const crossing = edgesInView(edges, at, strip);
    expect(crossing).toEqual([{ source: { x: one.x, y: one.y + NODE_H }, target: two }]);
    // Below every node: nothing.
    expect(edgesInView(edges, at, { left: -1e6, right: 1e6, top: 1e5, bottom: 2e5 })).toEqual([]);
  });

  it("a 5,000-deep chain neither overflows the stack nor loops", () => {
    const chain = Array.from({ length: 5000 }, (_, i) => member(i + 1, i === 0 ? null : i));
    const index = indexThread(chain);
    expect(descendantCounts(index).get(1)).toBe(4999);
    expect(branchThrough(index, 1)).toHaveLength(5000);
    expect(layoutThread(index).nodes).toHaveLength(5000);
  });
});

describe("sender display names", () => {
  it("shows the bot's username for the agent, operators without the address prefix, users as named", () => {
    expect(senderDisplayName("agent", "main", "switchboard_bot")).toBe("@switchboard_bot");
    expect(senderDisplayName("agent", "main", null)).toBe("main");
    expect(senderDisplayName("system", "operator:op", "b")).toBe("op");
    expect(senderDisplayName("operator", "alice", "b")).toBe("alice");
    expect(senderDisplayName("user", null, "b")).toBe("user");
  });
});
