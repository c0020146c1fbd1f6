import type { AttachmentFact, ContextFacts, ContextNeeds, StoredMessage } from "./context-facts";
import type { Database } from "./database";
import { forkLineage, mainSessionSince } from "./forks";
import { inJsonList, jsonList, prismaRow, prismaRowFromJson } from "./sql";

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
  deletedBy: true,
  senderRole: true,
  forwardedFrom: true,
  viaBot: true,
  replyToChatTitle: true,
  platformMessageId: true,
  shared: true,
  mediaGroupId: true,
} as const;

export type Scope = { conversationId: number; forkId: number | null | { in: number[] } };
export type Pivot = { id: number; sentAt: Date };

/**
 * Up to `take` messages of a session before (or after) a pivot in (sentAt, id)
 * order. Two index range scans — strictly earlier/later times, and same-second
 * ties by id — because an OR of both makes SQLite walk the whole conversation.
 */
export async function beside(
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
  return rows.slice(0, take).map(({ part: _part, ...row }) => prismaRow<StoredMessage>(row, storedMessageColumns, db.dialect));
}

const storedMessageColumns = { dates: ["sentAt", "editedAt", "deletedAt"], booleans: ["replyToSenderIsBot"], json: ["shared"] };

/** What to load for a turn: the message answered (null for a background task) and how much (lib/context/assemble.ts `contextNeeds`). */
const ATTACHMENT_COLUMNS = `"id", "messageId", "position", "kind", "mimeType", "fileName", "sizeBytes", "width", "height", "durationSeconds",
       "status", "error", "details", "transcript", "blobSha256"`;

/** A message's previous time in the chat: a same-second predecessor (elapsed 0), else the latest earlier time; `m` is the message. */
const PREVIOUS_AT = `CASE WHEN EXISTS (SELECT 1 FROM "Message" t WHERE t."conversationId" = m."conversationId" AND t."sentAt" = m."sentAt" AND t."id" < m."id")
         THEN m."sentAt"
         ELSE (SELECT p."sentAt" FROM "Message" p WHERE p."conversationId" = m."conversationId" AND p."sentAt" < m."sentAt" ORDER BY p."sentAt" DESC LIMIT 1)
       END`;

/**
 * PostgreSQL: the main session's recency window up to `current` (as `beside`), when
 * each of its messages' predecessor was sent (as `previousSentAtOf`) and their
 * attachments (as `attachmentsOf`), in one statement with the same index seeks:
 * three round trips cost the server more than the statement costs the database.
 */
export async function mainWindowWithFacts(db: Database, current: StoredMessage, take: number) {
  const columns = Object.keys(storedMessageSelect)
    .map((c) => `"${c}"`)
    .join(", ");
  type Row = { window: Record<string, unknown>[] | null; previous: PreviousRow[] | null; attachments: Record<string, unknown>[] | null };
  const [row] = await db.read<Row>(
    `WITH w AS (
       SELECT * FROM (
         SELECT * FROM (SELECT 0 AS "part", ${columns} FROM "Message"
           WHERE "conversationId" = ? AND "forkId" IS NULL AND "sentAt" = ? AND "id" <= ? ORDER BY "id" DESC LIMIT ?) t1
         UNION ALL
         SELECT * FROM (SELECT 1 AS "part", ${columns} FROM "Message"
           WHERE "conversationId" = ? AND "forkId" IS NULL AND "sentAt" < ? ORDER BY "sentAt" DESC, "id" DESC LIMIT ?) t2
       ) u ORDER BY "part", "sentAt" DESC, "id" DESC LIMIT ?
     )
     SELECT
       (SELECT jsonb_agg(to_jsonb(w) - 'part' ORDER BY w."part", w."sentAt" DESC, w."id" DESC) FROM w) AS "window",
       (SELECT jsonb_agg(jsonb_build_object('id', m."id", 'previousAt', ${PREVIOUS_AT})) FROM "Message" m WHERE m."id" IN (SELECT "id" FROM w)) AS "previous",
       (SELECT jsonb_agg(to_jsonb(a) ORDER BY a."messageId", a."position", a."id")
          FROM (SELECT ${ATTACHMENT_COLUMNS} FROM "Attachment" WHERE "messageId" IN (SELECT "id" FROM w)) a) AS "attachments"`,
    current.conversationId,
    current.sentAt,
    current.id,
    take,
    current.conversationId,
    current.sentAt,
    take,
    take,
  );
  const session = (row?.window ?? []).map((m) => prismaRowFromJson<StoredMessage>(m, storedMessageColumns));
  const previousSentAt = new Map(
    (row?.previous ?? []).map((p) => [
      Number(p.id),
      prismaRowFromJson<{ previousAt: Date | null }>(p, { dates: ["previousAt"] }).previousAt,
    ]),
  );
  return { session, previousSentAt, attachments: attachmentFacts(row?.attachments ?? [], "postgresql") };
}

type AttachmentSqlRow = Omit<AttachmentFact, "details"> & { details: string | Record<string, unknown> | null };

/**
 * The attachments of the loaded messages, per message id in order: one statement
 * on the (messageId) index, whatever the number of messages. Most turns have none.
 */
export async function attachmentsOf(db: Database, messages: Pick<StoredMessage, "id">[]): Promise<Map<number, AttachmentFact[]>> {
  const ids = [...new Set(messages.map((m) => m.id))];
  if (ids.length === 0) return new Map();
  const rows = await db.read<AttachmentSqlRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM "Attachment" WHERE ${inJsonList(db, `"messageId"`)} ORDER BY "messageId", "position", "id"`,
    jsonList(ids),
  );
  return attachmentFacts(rows, db.dialect);
}

/** Attachment rows, in order, per message id. */
function attachmentFacts(
  rows: AttachmentSqlRow[] | Record<string, unknown>[],
  dialect: Database["dialect"],
): Map<number, AttachmentFact[]> {
  const out = new Map<number, AttachmentFact[]>();
  for (const row of rows) {
    const fact = prismaRow<AttachmentFact>({ ...row }, { json: ["details"] }, dialect);
    const messageId = Number(fact.messageId);
    out.set(messageId, [...(out.get(messageId) ?? []), { ...fact, id: Number(fact.id), messageId }]);
  }
  return out;
}

type SessionFacts = Pick<ContextFacts, "session" | "forkBase" | "pendingUpdates">;

/** Later than any message: a pivot for "the newest messages", with nothing tied to it. */
const END_OF_TIME = { id: 2_147_483_647, sentAt: new Date("9999-12-31T00:00:00.000Z") };

/** The newest main-session messages (a background task's context). */
export async function loadNewestMain(db: Database, conversationId: number, take: number): Promise<SessionFacts> {
  return { session: await beside(db, { conversationId, forkId: null }, END_OF_TIME, "before", take), forkBase: [], pendingUpdates: [] };
}

/**
 * The current message's session up to it: the main session, or a fork's own (and
 * its ancestors') messages, the main session before the oldest ancestor began,
 * and what the main session said since (pending updates).
 */
export async function loadSession(db: Database, current: StoredMessage, needs: ContextNeeds): Promise<SessionFacts> {
  const take = needs.recency;
  if (current.forkId === null) {
    const session = await beside(db, { conversationId: current.conversationId, forkId: null }, current, "before", take, true);
    return { session, forkBase: [], pendingUpdates: [] };
  }
  const lineage = await forkLineage(db, current.forkId);
  const baseId = lineage.at(-1)?.baseMessageId ?? 0;
  const base = baseId ? await db.prisma.message.findUnique({ where: { id: baseId }, select: { id: true, sentAt: true } }) : null;
  const [session, forkBase, pendingUpdates] = await Promise.all([
    beside(db, { conversationId: current.conversationId, forkId: { in: lineage.map((f) => f.id) } }, current, "before", take, true),
    base ? beside(db, { conversationId: current.conversationId, forkId: null }, base, "before", take, true) : Promise.resolve([]),
    needs.pendingUpdates > 0 ? mainSessionSince(db, current.conversationId, baseId, current.id, needs.pendingUpdates) : Promise.resolve([]),
  ]);
  return { session, forkBase, pendingUpdates };
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
    `SELECT m."id" AS "id", ${PREVIOUS_AT} AS "previousAt" FROM "Message" m WHERE ${inJsonList(db, `m."id"`)}`,
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
