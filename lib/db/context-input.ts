import type { StoredMessage } from "../context/types";
import type { Settings } from "../settings/schema";
import type { Database } from "./database";
import { forkLineage, mainSessionSince } from "./forks";
import { inJsonList, jsonList, prismaRow } from "./sql";

export const storedMessageSelect = {
  id: true,
  conversationId: true,
  direction: true,
  senderKind: true,
  senderName: true,
  text: true,
  sentAt: true,
  replyToMessageId: true,
  replyToText: true,
  replyToSenderName: true,
  replyToSenderIsBot: true,
  quoteText: true,
  forkId: true,
  editedAt: true,
  deletedAt: true,
  senderRole: true,
  forwardedFrom: true,
  viaBot: true,
  replyToChatTitle: true,
  platformMessageId: true,
} as const;

export type ContextQueryInput = {
  current: StoredMessage;
  settings: Pick<Settings, "recencyWindow" | "replyContextWindow" | "replyChainDepth">;
};

type Scope = { conversationId: number; forkId: number | null | { in: number[] } };
type Pivot = { id: number; sentAt: Date };

/**
 * Up to `take` messages of a session before (or after) a pivot in (sentAt, id)
 * order. Two index range scans — strictly earlier/later times, and same-second
 * ties by id — because an OR of both makes SQLite walk the whole conversation.
 */
async function beside(
  db: Database,
  scope: Scope,
  pivot: Pivot,
  side: "before" | "after",
  take: number,
  inclusive = false,
): Promise<StoredMessage[]> {
  if (take <= 0) return [];
  // On the hand-written path (every turn reads its recency window): one statement
  // with both range scans, the ties first (nearer the pivot than anything strictly before or after it).
  const dir = side === "before" ? "DESC" : "ASC";
  const forks = scope.forkId === null ? [] : typeof scope.forkId === "number" ? [scope.forkId] : scope.forkId.in;
  // The fork list is one JSON parameter: the statement's text stays the same whatever its length (it is prepared once).
  const fork = scope.forkId === null ? `"forkId" IS NULL` : forks.length ? inJsonList(db, `"forkId"`) : "1 = 0";
  const forkParams = forks.length ? [jsonList(forks)] : [];
  const idOp = side === "before" ? (inclusive ? "<=" : "<") : inclusive ? ">=" : ">";
  const columns = Object.keys(storedMessageSelect)
    .map((c) => `"${c}"`)
    .join(", ");
  const rows = await db.read<Record<string, unknown>>(
    `SELECT * FROM (SELECT 0 AS "part", ${columns} FROM "Message" WHERE "conversationId" = ? AND ${fork} AND "sentAt" = ? AND "id" ${idOp} ? ORDER BY "id" ${dir} LIMIT ?) t1
     UNION ALL
     SELECT * FROM (SELECT 1 AS "part", ${columns} FROM "Message" WHERE "conversationId" = ? AND ${fork} AND "sentAt" ${side === "before" ? "<" : ">"} ? ORDER BY "sentAt" ${dir}, "id" ${dir} LIMIT ?) t2
     ORDER BY "part", "sentAt" ${dir}, "id" ${dir}`,
    scope.conversationId,
    ...forkParams,
    pivot.sentAt,
    pivot.id,
    take,
    scope.conversationId,
    ...forkParams,
    pivot.sentAt,
    take,
  );
  return rows.slice(0, take).map(({ part: _part, ...row }) => prismaRow<StoredMessage>(row, storedMessageColumns));
}

const storedMessageColumns = { dates: ["sentAt", "editedAt", "deletedAt"], booleans: ["replyToSenderIsBot"] };

/**
 * Loads what buildContext needs with index-backed queries whose cost does not
 * grow with the conversation's length: the recency window (conversationId,
 * forkId, sentAt), the reply target by id, its neighbours on both sides, and the
 * chain upward by id. The session is the current message's fork (null = main).
 */
export async function loadContextInput(db: Database, { current, settings }: ContextQueryInput) {
  const take = Math.max(settings.recencyWindow, 2);
  let recentDesc: StoredMessage[];
  let pendingUpdates: Awaited<ReturnType<typeof mainSessionSince>> = [];
  if (current.forkId === null) {
    recentDesc = await beside(db, { conversationId: current.conversationId, forkId: null }, current, "before", take, true);
  } else {
    // A fork's session: its own (and its ancestors') messages, after the main
    // session as it was when the oldest ancestor began. What the main session said
    // since then comes separately, as pending updates.
    const lineage = await forkLineage(db, current.forkId);
    const baseId = lineage.at(-1)?.baseMessageId ?? 0;
    const base = baseId ? await db.prisma.message.findUnique({ where: { id: baseId }, select: { id: true, sentAt: true } }) : null;
    const [forked, before] = await Promise.all([
      beside(db, { conversationId: current.conversationId, forkId: { in: lineage.map((f) => f.id) } }, current, "before", take, true),
      base ? beside(db, { conversationId: current.conversationId, forkId: null }, base, "before", take, true) : Promise.resolve([]),
    ]);
    recentDesc = [...forked, ...before].sort((a, b) => b.sentAt.getTime() - a.sentAt.getTime() || b.id - a.id).slice(0, take);
    pendingUpdates = await mainSessionSince(db, current.conversationId, baseId, current.id, 20);
  }
  const previous = recentDesc.find((m) => m.id !== current.id) ?? null;
  const recent = recentDesc.slice(0, settings.recencyWindow);

  const target = current.replyToMessageId
    ? await db.prisma.message.findUnique({ where: { id: current.replyToMessageId }, select: storedMessageSelect })
    : null;
  let targetNeighbours: StoredMessage[] = [];
  const chain: StoredMessage[] = [];
  if (target) {
    const k = settings.replyContextWindow;
    const around = { conversationId: target.conversationId, forkId: target.forkId };
    const [before, after] = await Promise.all([beside(db, around, target, "before", k), beside(db, around, target, "after", k)]);
    targetNeighbours = [...before, ...after];
    let parentId = target.replyToMessageId;
    for (let depth = 1; depth < settings.replyChainDepth && parentId; depth++) {
      const parent = await db.prisma.message.findUnique({ where: { id: parentId }, select: storedMessageSelect });
      if (!parent) break;
      chain.push(parent);
      parentId = parent.replyToMessageId;
    }
  }
  const previousSentAt = await previousSentAtOf(db, [current, ...recent, ...(target ? [target] : []), ...targetNeighbours, ...chain]);
  return { recent, previous, target, targetNeighbours, chain, pendingUpdates, previousSentAt };
}

/** Later than any message: a pivot for "the newest messages", with nothing tied to it. */
const END_OF_TIME = { id: 2_147_483_647, sentAt: new Date("9999-12-31T00:00:00.000Z") };

/**
 * The newest `take` messages of a conversation's main session, oldest first, in
 * the recency window's (sentAt, id) order: what a turn without a current message
 * (a background task) reads as its context.
 */
export async function newestMainSessionMessages(db: Database, conversationId: number, take: number): Promise<StoredMessage[]> {
  return (await beside(db, { conversationId, forkId: null }, END_OF_TIME, "before", take)).reverse();
}

type PreviousRow = { id: number; previousAt: Date | string | null };

/**
 * For each message, when the message before it in the chat was sent — in the
 * whole conversation (every session), not in the prompt — so the header's
 * elapsed field counts real time. One statement: per message, a same-second
 * predecessor (elapsed 0) or the latest earlier time, each one seek on the
 * (conversationId, sentAt, id) index.
 */
export async function previousSentAtOf(db: Database, messages: Pick<StoredMessage, "id">[]): Promise<Map<number, Date | null>> {
  const ids = [...new Set(messages.map((m) => m.id))];
  if (ids.length === 0) return new Map();
  const rows = await db.read<PreviousRow>(
    `SELECT m."id" AS "id",
       CASE WHEN EXISTS (SELECT 1 FROM "Message" t WHERE t."conversationId" = m."conversationId" AND t."sentAt" = m."sentAt" AND t."id" < m."id")
         THEN m."sentAt"
         ELSE (SELECT p."sentAt" FROM "Message" p WHERE p."conversationId" = m."conversationId" AND p."sentAt" < m."sentAt" ORDER BY p."sentAt" DESC LIMIT 1)
       END AS "previousAt"
     FROM "Message" m WHERE ${inJsonList(db, `m."id"`)}`,
    jsonList(ids),
  );
  // SQLite hands back Prisma's ISO text, PostgreSQL a Date.
  return new Map(rows.map((r) => [Number(r.id), r.previousAt === null ? null : new Date(r.previousAt)]));
}

export function findStoredMessage(db: Database, id: number) {
  return db.prisma.message.findUnique({ where: { id }, select: storedMessageSelect });
}

/** Several stored messages by id, oldest first (a burst's earlier messages). */
export function findStoredMessages(db: Database, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.prisma.message.findMany({
    where: { id: { in: ids } },
    orderBy: [{ sentAt: "asc" }, { id: "asc" }],
    select: storedMessageSelect,
  });
}
