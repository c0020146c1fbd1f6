import type { Db } from "./client";

export type ThreadEnvelope = {
  id: number;
  from: string;
  to: string;
  status: string;
  text: string;
  replyToEnvelopeId: number | null;
  conversationId: number | null;
  messageId: number | null;
  forkId: number | null;
  lastDeliveryError: string | null;
  deliverAt: Date | null;
  createdAt: Date;
  depth: number;
};

type Row = Omit<ThreadEnvelope, "deliverAt" | "createdAt" | "depth" | "id" | "replyToEnvelopeId" | "conversationId" | "messageId" | "forkId"> & {
  part: string;
  id: number | bigint;
  replyToEnvelopeId: number | bigint | null;
  conversationId: number | bigint | null;
  messageId: number | bigint | null;
  forkId: number | bigint | null;
  deliverAt: Date | string | number | null;
  createdAt: Date | string | number;
  depth: number | bigint;
};

const num = (v: number | bigint | null) => (v === null ? null : Number(v));
const date = (v: Date | string | number | null) => (v === null ? null : v instanceof Date ? v : new Date(typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v));

/**
 * An envelope's thread in ONE query (recursive CTEs, the same SQL on SQLite and
 * PostgreSQL): the chain from the envelope up to its root (root first), and the
 * whole tree below that root (breadth-first by depth). Null when the id is unknown.
 */
export async function envelopeThread(db: Db, envelopeId: number) {
  const rows = await db.$queryRaw<Row[]>`
    WITH RECURSIVE up(id, parent, depth) AS (
      SELECT id, "replyToEnvelopeId", 0 FROM "Envelope" WHERE id = ${envelopeId}
      UNION ALL
      SELECT e.id, e."replyToEnvelopeId", up.depth + 1 FROM "Envelope" e JOIN up ON e.id = up.parent
    ),
    root(id) AS (SELECT id FROM up WHERE parent IS NULL OR depth = (SELECT MAX(depth) FROM up) LIMIT 1),
    down(id, depth) AS (
      SELECT id, 0 FROM root
      UNION ALL
      SELECT e.id, down.depth + 1 FROM "Envelope" e JOIN down ON e."replyToEnvelopeId" = down.id
    ),
    parts(part, id, depth) AS (
      SELECT 'chain', id, depth FROM up
      UNION ALL
      SELECT 'tree', id, depth FROM down
    )
    SELECT p.part, p.depth, e.id, e."from", e."to", e.status, e.text, e."replyToEnvelopeId", e."conversationId",
           e."messageId", e."forkId", e."lastDeliveryError", e."deliverAt", e."createdAt"
    FROM parts p JOIN "Envelope" e ON e.id = p.id`;
  if (rows.length === 0) return null;
  const toEnvelope = (r: Row): ThreadEnvelope => ({
    id: Number(r.id),
    from: r.from,
    to: r.to,
    status: r.status,
    text: r.text,
    replyToEnvelopeId: num(r.replyToEnvelopeId),
    conversationId: num(r.conversationId),
    messageId: num(r.messageId),
    forkId: num(r.forkId),
    lastDeliveryError: r.lastDeliveryError,
    deliverAt: date(r.deliverAt),
    createdAt: date(r.createdAt)!,
    depth: Number(r.depth),
  });
  const chain = rows.filter((r) => r.part === "chain").map(toEnvelope).sort((a, b) => b.depth - a.depth);
  const tree = rows.filter((r) => r.part === "tree").map(toEnvelope).sort((a, b) => a.depth - b.depth || a.id - b.id);
  return { envelopeId, root: chain[0].id, chain, tree };
}

/** The naive way, one query per hop: kept for the benchmark's baseline. */
export async function envelopeChainByPointers(db: Db, envelopeId: number) {
  const chain = [];
  let next: number | null = envelopeId;
  while (next !== null) {
    const row: { id: number; replyToEnvelopeId: number | null } | null = await db.envelope.findUnique({ where: { id: next }, select: { id: true, replyToEnvelopeId: true } });
    if (!row) break;
    chain.push(row);
    next = row.replyToEnvelopeId;
  }
  return chain.reverse();
}
