import type { Database } from "./database";
import { isUniqueViolation } from "./errors";

const savedReplyView = { id: true, scope: true, shortcut: true, text: true, createdBy: true, createdAt: true, updatedAt: true } as const;

/**
 * The saved replies of the given scopes, by shortcut; `search` matches the start of
 * the shortcut or any part of the text, as typed (instr/strpos, not LIKE, whose %
 * and _ would be wildcards with no escape on SQLite), ignoring case.
 */
export async function listSavedReplies(db: Database, scopes: string[], search?: string) {
  let ids: number[] | undefined;
  if (search && scopes.length > 0) {
    const at = (column: string) => (db.dialect === "sqlite" ? `instr(lower(${column}), ?)` : `strpos(lower(${column}), ?)`);
    const needle = search.toLowerCase();
    const rows = await db.read<{ id: number }>(
      `SELECT "id" FROM "SavedReply" WHERE "scope" IN (${scopes.map(() => "?").join(", ")})
       AND (${at(`"shortcut"`)} = 1 OR ${at(`"text"`)} > 0) ORDER BY "shortcut" ASC, "id" ASC LIMIT 200`,
      ...scopes,
      needle,
      needle,
    );
    ids = rows.map((row) => Number(row.id));
  }
  return db.prisma.savedReply.findMany({
    where: ids ? { id: { in: ids } } : { scope: { in: scopes } },
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
