import type { Database } from "./database";
import { isUniqueViolation } from "./errors";

const savedReplyView = { id: true, scope: true, shortcut: true, text: true, createdBy: true, createdAt: true, updatedAt: true } as const;

/** The saved replies of the given scopes, by shortcut; `search` matches the shortcut or the text. */
export function listSavedReplies(db: Database, scopes: string[], search?: string) {
  return db.prisma.savedReply.findMany({
    where: {
      scope: { in: scopes },
      ...(search ? { OR: [{ shortcut: { startsWith: search } }, { text: { contains: search } }] } : {}),
    },
    orderBy: [{ shortcut: "asc" }, { id: "asc" }],
    take: 200,
    select: savedReplyView,
  });
}

export function findSavedReply(db: Database, id: number) {
  return db.prisma.savedReply.findUnique({ where: { id }, select: savedReplyView });
}

/** Null when the shortcut is taken in that scope. */
export async function createSavedReply(db: Database, input: { scope: string; shortcut: string; text: string; createdBy: string }) {
  try {
    return await db.prisma.savedReply.create({ data: input, select: savedReplyView });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Null when the new shortcut is taken in that scope. */
export async function updateSavedReply(db: Database, id: number, data: { scope?: string; shortcut?: string; text?: string }) {
  try {
    return await db.prisma.savedReply.update({ where: { id }, data, select: savedReplyView });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function deleteSavedReply(db: Database, id: number) {
  await db.prisma.savedReply.deleteMany({ where: { id } });
}
