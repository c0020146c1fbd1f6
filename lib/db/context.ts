import type { StoredMessage } from "../context/types";
import type { Settings } from "../settings/schema";
import type { Db } from "./client";

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
} as const;

export type ContextQueryInput = {
  current: StoredMessage;
  settings: Pick<Settings, "recencyWindow" | "replyContextWindow" | "replyChainDepth">;
};

/**
 * Loads what buildContext needs with index-backed queries whose cost does not
 * grow with the conversation's length: the recency window (conversationId,
 * forkId, sentAt), the reply target by id, its neighbours on both sides, and the
 * chain upward by id. The session is the current message's fork (null = main).
 */
export async function loadContextInput(db: Db, { current, settings }: ContextQueryInput) {
  const scope = { conversationId: current.conversationId, forkId: current.forkId };
  const upToCurrent = { OR: [{ sentAt: { lt: current.sentAt } }, { sentAt: current.sentAt, id: { lte: current.id } }] };
  const recentDesc = await db.message.findMany({
    where: { ...scope, ...upToCurrent },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
    take: Math.max(settings.recencyWindow, 2),
    select: storedMessageSelect,
  });
  const previous = recentDesc.find((m) => m.id !== current.id) ?? null;
  const recent = recentDesc.slice(0, settings.recencyWindow);

  const target = current.replyToMessageId
    ? await db.message.findUnique({ where: { id: current.replyToMessageId }, select: storedMessageSelect })
    : null;
  let targetNeighbours: StoredMessage[] = [];
  const chain: StoredMessage[] = [];
  if (target) {
    const k = settings.replyContextWindow;
    const around = { conversationId: target.conversationId, forkId: target.forkId };
    const [before, after] =
      k > 0
        ? await Promise.all([
            db.message.findMany({
              where: { ...around, OR: [{ sentAt: { lt: target.sentAt } }, { sentAt: target.sentAt, id: { lt: target.id } }] },
              orderBy: [{ sentAt: "desc" }, { id: "desc" }],
              take: k,
              select: storedMessageSelect,
            }),
            db.message.findMany({
              where: { ...around, OR: [{ sentAt: { gt: target.sentAt } }, { sentAt: target.sentAt, id: { gt: target.id } }] },
              orderBy: [{ sentAt: "asc" }, { id: "asc" }],
              take: k,
              select: storedMessageSelect,
            }),
          ])
        : [[], []];
    targetNeighbours = [...before, ...after];
    let parentId = target.replyToMessageId;
    for (let depth = 1; depth < settings.replyChainDepth && parentId; depth++) {
      const parent = await db.message.findUnique({ where: { id: parentId }, select: storedMessageSelect });
      if (!parent) break;
      chain.push(parent);
      parentId = parent.replyToMessageId;
    }
  }
  return { recent, previous, target, targetNeighbours, chain };
}

export function findStoredMessage(db: Db, id: number) {
  return db.message.findUnique({ where: { id }, select: storedMessageSelect });
}
