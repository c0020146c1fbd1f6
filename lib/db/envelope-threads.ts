import { type BotScope, conversationScopeWhere } from "./conversation-scope";
import type { Database } from "./database";

export type ThreadEnvelope = {
  id: number;
  from: string;
  to: string;
  status: string;
  text: string;
  replyToEnvelopeId: number | null;
  lastDeliveryError: string | null;
  createdAt: Date;
  depth: number;
};

type Row = Omit<ThreadEnvelope, "createdAt" | "depth" | "id" | "replyToEnvelopeId"> & {
  id: number | bigint;
  replyToEnvelopeId: number | bigint | null;
  conversationId: number | bigint | null;
  createdAt: Date | string | number;
  depth: number | bigint;
};

const num = (v: number | bigint | null) => (v === null ? null : Number(v));
const date = (v: Date | string | number | null) =>
  v === null ? null : v instanceof Date ? v : new Date(typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v);

/**
 * An envelope's thread in ONE indexed query: every envelope shares its root's id
 * (`threadRootId`, materialized at creation), so the tree below the root is a
 * lookup by that id, found from the envelope in the same statement. The chain
 * from the envelope up to the root (root first) and each envelope's depth are
 * then read off the tree by parent pointers in memory. Null when the id is unknown.
 * A caller limited to some bots (`bots`) gets the thread without other bots' envelopes
 * (a thread can join conversations: a reply may go to another chat).
 */
export async function envelopeThread(db: Database, envelopeId: number, bots?: BotScope) {
  const all = await db.prisma.$queryRaw<Row[]>`
    SELECT t.id, t."from", t."to", t.status, t.text, t."replyToEnvelopeId", t."lastDeliveryError", t."createdAt", t."conversationId"
    FROM "Envelope" t
    JOIN (SELECT COALESCE("threadRootId", id) AS root FROM "Envelope" WHERE id = ${envelopeId}) r
      ON t.id = r.root OR t."threadRootId" = r.root`;
  const rows = bots ? await inScopeRows(db, all, bots) : all;
  if (rows.length === 0) return null;
  const byId = new Map<number, ThreadEnvelope>();
  for (const r of rows) {
    byId.set(Number(r.id), {
      id: Number(r.id),
      from: r.from,
      to: r.to,
      status: r.status,
      text: r.text,
      replyToEnvelopeId: num(r.replyToEnvelopeId),
      lastDeliveryError: r.lastDeliveryError,
      createdAt: date(r.createdAt)!,
      depth: -1,
    });
  }
  // Depths by walking up with memoization: linear in the tree's size.
  const depthOf = (start: ThreadEnvelope): number => {
    const path: ThreadEnvelope[] = [];
    let e: ThreadEnvelope | undefined = start;
    while (e && e.depth < 0) {
      path.push(e);
      e = e.replyToEnvelopeId === null ? undefined : byId.get(e.replyToEnvelopeId);
    }
    let depth = e ? e.depth : -1;
    for (let i = path.length - 1; i >= 0; i--) path[i].depth = ++depth;
    return start.depth;
  };
  for (const e of byId.values()) depthOf(e);
  const tree = [...byId.values()].sort((a, b) => a.depth - b.depth || a.id - b.id);
  const chain: ThreadEnvelope[] = [];
  for (let e = byId.get(envelopeId); e; e = e.replyToEnvelopeId === null ? undefined : byId.get(e.replyToEnvelopeId)) chain.push(e);
  chain.reverse();
  return { envelopeId, root: tree[0].id, chain, tree };
}

/** The rows of no conversation or of one of the scope's. */
async function inScopeRows(db: Database, rows: Row[], bots: BotScope) {
  const ids = [...new Set(rows.flatMap((r) => (r.conversationId === null ? [] : [Number(r.conversationId)])))];
  const kept = await db.prisma.conversation.findMany({ where: { id: { in: ids }, ...conversationScopeWhere(bots) }, select: { id: true } });
  const reachable = new Set(kept.map((c) => c.id));
  return rows.filter((r) => r.conversationId === null || reachable.has(Number(r.conversationId)));
}

/** The naive way, one query per hop: kept for the benchmark's baseline. */
export async function envelopeChainByPointers(db: Database, envelopeId: number) {
  const chain = [];
  let next: number | null = envelopeId;
  while (next !== null) {
    const row: { id: number; replyToEnvelopeId: number | null } | null = await db.prisma.envelope.findUnique({
      where: { id: next },
      select: { id: true, replyToEnvelopeId: true },
    });
    if (!row) break;
    chain.push(row);
    next = row.replyToEnvelopeId;
  }
  return chain.reverse();
}
