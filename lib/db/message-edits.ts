import type { Database } from "./database";

/**
 * An operator's edit of a sent message: the text it replaces is kept as a revision
 * (with who replaced it and when), the message gets the new text and `editedAt`, in
 * one transaction. Only when the text is still `previousText` (another edit meanwhile
 * leaves it alone): returns whether it changed.
 */
export function recordOperatorEdit(
  db: Database,
  input: { messageId: number; previousText: string; text: string; at: Date; by: string },
): Promise<boolean> {
  return db.transaction(async (sql) => {
    const changed = await sql.one<{ id: number }>(
      `UPDATE "Message" SET "text" = ?, "editedAt" = ? WHERE "id" = ? AND "text" = ? AND "deletedAt" IS NULL RETURNING "id"`,
      input.text,
      input.at,
      input.messageId,
      input.previousText,
    );
    if (!changed) return false;
    await sql.run(
      `INSERT INTO "MessageRevision" ("messageId", "text", "replacedAt", "editedBy") VALUES (?, ?, ?, ?)`,
      input.messageId,
      input.previousText,
      input.at,
      input.by,
    );
    return true;
  });
}

/**
 * An operator deleted a sent message from the chat: the row and its text stay for operators, marked with
 * who and when. The replies to it lose their copies of its text (the platform's `replyToText`, the user's
 * selected `quoteText`), as the user's app shows "Deleted message": no later prompt, timeline or simulator
 * quotes what was taken back.
 */
export function recordOperatorDelete(db: Database, input: { messageId: number; at: Date; by: string }): Promise<boolean> {
  return db.transaction(async (sql) => {
    const deleted = await sql.one<{ id: number }>(
      `UPDATE "Message" SET "deletedAt" = ?, "deletedBy" = ? WHERE "id" = ? AND "deletedAt" IS NULL RETURNING "id"`,
      input.at,
      input.by,
      input.messageId,
    );
    if (!deleted) return false;
    await sql.run(`UPDATE "Message" SET "replyToText" = NULL, "quoteText" = NULL WHERE "replyToMessageId" = ?`, input.messageId);
    return true;
  });
}

/** Whether a message carries a file (its text is then the file's caption). */
export async function hasAttachment(db: Database, messageId: number): Promise<boolean> {
  const rows = await db.read<{ id: number }>(`SELECT "id" FROM "Attachment" WHERE "messageId" = ? LIMIT 1`, messageId);
  return rows.length > 0;
}

/** A message as an edit or deletion leaves it: every column, with its earlier texts (oldest first). */
export async function messageWithRevisions(db: Database, messageId: number) {
  return db.prisma.message.findUniqueOrThrow({
    where: { id: messageId },
    include: { revisions: { select: { text: true, replacedAt: true, editedBy: true }, orderBy: { id: "asc" } } },
  });
}
