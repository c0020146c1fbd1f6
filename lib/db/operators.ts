import { createHash } from "node:crypto";
import type { Database } from "./database";
import { isUniqueViolation } from "./errors";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

export function countOperators(db: Database) {
  return db.prisma.operator.count();
}

export function findOperatorByName(db: Database, name: string) {
  return db.prisma.operator.findUnique({ where: { name } });
}

const operatorView = { id: true, name: true, displayName: true } as const;

/** Every operator's id, sign-in name and display name (no hashes), for showing senders. */
export function listOperators(db: Database) {
  return db.prisma.operator.findMany({ select: operatorView, orderBy: { id: "asc" } });
}

/** Null when there is no such operator. */
export async function updateDisplayName(db: Database, id: number, displayName: string | null) {
  const { count } = await db.prisma.operator.updateMany({ where: { id }, data: { displayName } });
  return count === 0 ? null : db.prisma.operator.findUnique({ where: { id }, select: operatorView });
}

/** The setting row that claims first-run setup: its primary key lets exactly one creator win. */
const FIRST_OPERATOR_CLAIM = "_setup.firstOperator";

/**
 * Creates the first operator, atomically: counts and claims in one transaction, and
 * the claim's primary key makes every concurrent loser fail, on SQLite and PostgreSQL.
 * Returns null when an operator exists or another request won.
 */
export async function createFirstOperator(db: Database, input: { name: string; passwordHash: string }) {
  try {
    return await db.prisma.$transaction(async (tx) => {
      if ((await tx.operator.count()) > 0) return null;
      await tx.setting.create({ data: { key: FIRST_OPERATOR_CLAIM, value: input.name, updatedBy: "setup" } });
      return tx.operator.create({ data: input });
    });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Stores only the hash of the cookie token, so a leaked database opens no session. */
export function createSession(db: Database, input: { operatorId: number; token: string; csrfToken: string; expiresAt: Date }) {
  return db.prisma.operatorSession.create({
    data: { operatorId: input.operatorId, tokenHash: sha256(input.token), csrfToken: input.csrfToken, expiresAt: input.expiresAt },
  });
}

export async function findLiveSession(db: Database, token: string, now: Date) {
  const session = await db.prisma.operatorSession.findUnique({
    where: { tokenHash: sha256(token) },
    include: { operator: { select: { id: true, name: true } } },
  });
  return session && session.expiresAt > now ? session : null;
}

/** Deletes the session of `token`; its id, or null when there was none. */
export async function deleteSession(db: Database, token: string): Promise<number | null> {
  const session = await db.prisma.operatorSession.findUnique({ where: { tokenHash: sha256(token) }, select: { id: true } });
  if (!session) return null;
  await db.prisma.operatorSession.deleteMany({ where: { id: session.id } });
  return session.id;
}

/** Whether a session still exists and has not expired (a live stream asks now and then). */
export async function isSessionLive(db: Database, id: number, now: Date): Promise<boolean> {
  const session = await db.prisma.operatorSession.findUnique({ where: { id }, select: { expiresAt: true } });
  return session !== null && session.expiresAt > now;
}

export function deleteExpiredSessions(db: Database, now: Date) {
  return db.prisma.operatorSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
