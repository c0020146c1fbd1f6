import type { BotScope } from "./conversation-scope";
import type { Database } from "./database";
import { insertTransitionRecord } from "./handoff";
import { isUniqueViolation } from "./errors";
import type { SqlRunner } from "./sql";

const labelView = { id: true, name: true, color: true } as const;

/** Every label, by name. */
export function listLabels(db: Database) {
  return db.prisma.label.findMany({ orderBy: [{ nameKey: "asc" }, { id: "asc" }], select: labelView });
}

export function findLabel(db: Database, id: number) {
  return db.prisma.label.findUnique({ where: { id }, select: labelView });
}

/** The labels of these names, matched ignoring case (each name's lowercased key). */
export function findLabelsByKey(db: Database, keys: string[]) {
  return db.prisma.label.findMany({ where: { nameKey: { in: keys } }, select: { ...labelView, nameKey: true } });
}

/** Null when the name is taken (ignoring case). */
export async function createLabel(db: Database, input: { name: string; color: string }) {
  try {
    return await db.prisma.label.create({ data: { ...input, nameKey: input.name.toLowerCase() }, select: labelView });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Null when the new name is taken (ignoring case). */
export async function updateLabel(db: Database, id: number, data: { name?: string; color?: string }) {
  try {
    return await db.prisma.label.update({
      where: { id },
      data: { ...data, ...(data.name !== undefined ? { nameKey: data.name.toLowerCase() } : {}) },
      select: labelView,
    });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Deletes the label; its rows on conversations go with it (ON DELETE CASCADE). */
export async function deleteLabel(db: Database, id: number) {
  await db.prisma.label.deleteMany({ where: { id } });
}

/** Each conversation's label names, by name. */
export async function labelNamesOf(db: Database, conversationIds: number[]): Promise<Map<number, string[]>> {
  const names = new Map<number, string[]>(conversationIds.map((id) => [id, []]));
  if (conversationIds.length === 0) return names;
  const rows = await db.prisma.conversationLabel.findMany({
    where: { conversationId: { in: conversationIds } },
    select: { conversationId: true, label: { select: { name: true, nameKey: true } } },
    orderBy: { label: { nameKey: "asc" } },
  });
  for (const row of rows) names.get(row.conversationId)?.push(row.label.name);
  return names;
}

/** One conversation's labels (id and name). */
export async function labelsOfConversation(db: Database, conversationId: number) {
  const rows = await db.prisma.conversationLabel.findMany({
    where: { conversationId },
    select: { label: { select: { id: true, name: true } } },
  });
  return rows.map((row) => row.label);
}

/** How many of the scope's conversations carry each label (labels on none are absent). */
export async function countLabelled(db: Database, bots: BotScope | undefined): Promise<Map<number, number>> {
  const groups = await db.prisma.conversationLabel.groupBy({
    by: ["labelId"],
    where: bots ? { conversation: { botId: { in: bots } } } : {},
    _count: { _all: true },
  });
  return new Map(groups.map((g) => [g.labelId, g._count._all]));
}

/**
 * Puts labels on a conversation and takes others off, and records the change as an
 * envelope, on the caller's transaction, only while the conversation still carries
 * exactly `expect` (the label ids the change was worked out from): returns false,
 * writing nothing, when another change came first. The conversation's row is written
 * first, so on PostgreSQL a concurrent change waits for this one and then sees it.
 */
export async function writeLabelChange(
  sql: SqlRunner,
  input: {
    conversationId: number;
    at: Date;
    expect: number[];
    add: number[];
    remove: number[];
    envelope: { from: string; to: string; text: string; metadata: Record<string, unknown> };
  },
): Promise<boolean> {
  await sql.run(`UPDATE "Conversation" SET "updatedAt" = ? WHERE "id" = ?`, input.at, input.conversationId);
  const now = await sql.all<{ labelId: number }>(
    `SELECT "labelId" FROM "ConversationLabel" WHERE "conversationId" = ?`,
    input.conversationId,
  );
  const expected = new Set(input.expect);
  if (now.length !== expected.size || now.some((row) => !expected.has(Number(row.labelId)))) return false;
  if (input.remove.length > 0)
    await sql.run(
      `DELETE FROM "ConversationLabel" WHERE "conversationId" = ? AND "labelId" IN (${input.remove.map(() => "?").join(", ")})`,
      input.conversationId,
      ...input.remove,
    );
  for (const labelId of input.add)
    await sql.run(
      `INSERT INTO "ConversationLabel" ("conversationId", "labelId", "createdAt") VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
      input.conversationId,
      labelId,
      input.at,
    );
  await insertTransitionRecord(sql, input);
  return true;
}
