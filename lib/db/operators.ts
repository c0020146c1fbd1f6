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

const operatorView = {
  id: true,
  name: true,
  displayName: true,
  role: true,
  disabledAt: true,
  removedAt: true,
  botIds: true,
  createdAt: true,
} as const;
export type OperatorRow = {
  id: number;
  name: string;
  displayName: string | null;
  role: string;
  disabledAt: Date | null;
  removedAt: Date | null;
  /** JSON: a list of Bot ids, or null (every bot). */
  botIds: unknown;
  createdAt: Date;
};

/** Every operator, removed ones too (their names still sign history), without hashes. */
export function listOperators(db: Database): Promise<OperatorRow[]> {
  return db.prisma.operator.findMany({ select: operatorView, orderBy: { id: "asc" } });
}

export function findOperatorById(db: Database, id: number): Promise<OperatorRow | null> {
  return db.prisma.operator.findUnique({ where: { id }, select: operatorView });
}

/** Null when there is no such operator. */
export async function updateDisplayName(db: Database, id: number, displayName: string | null) {
  const { count } = await db.prisma.operator.updateMany({ where: { id, removedAt: null }, data: { displayName } });
  return count === 0 ? null : findOperatorById(db, id);
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
export function createSession(
  db: Database,
  input: { operatorId: number; token: string; csrfToken: string; expiresAt: Date; userAgent?: string | null },
) {
  return db.prisma.operatorSession.create({
    data: {
      operatorId: input.operatorId,
      tokenHash: sha256(input.token),
      csrfToken: input.csrfToken,
      expiresAt: input.expiresAt,
      userAgent: input.userAgent ?? null,
    },
  });
}

const sessionOperator = {
  select: { id: true, name: true, displayName: true, role: true, disabledAt: true, removedAt: true, botIds: true },
} as const;

/**
 * The session behind a cookie token, with its operator, or null when it has
 * expired or its operator is disabled or removed (their sessions are deleted
 * then too; this also covers a sign-in that raced the disabling).
 */
export async function findLiveSession(db: Database, token: string, now: Date) {
  const session = await db.prisma.operatorSession.findUnique({
    where: { tokenHash: sha256(token) },
    include: { operator: sessionOperator },
  });
  return session && isLive(session, now) ? session : null;
}

/** The same check by session id, for a stream that outlives its request (lib/http/event-stream.ts). */
/** A live session by id (not expired, its operator neither disabled nor removed), else null. */
export async function findLiveSessionById(db: Database, id: number, now: Date) {
  const session = await db.prisma.operatorSession.findUnique({ where: { id }, include: { operator: sessionOperator } });
  return session && isLive(session, now) ? session : null;
}

const isLive = (session: { expiresAt: Date; operator: { disabledAt: Date | null; removedAt: Date | null } }, now: Date) =>
  session.expiresAt > now && !session.operator.disabledAt && !session.operator.removedAt;

/** One operator's live sessions, newest first (never the token or its hash). */
export function listSessionsOf(db: Database, operatorId: number, now: Date) {
  return db.prisma.operatorSession.findMany({
    where: { operatorId, expiresAt: { gt: now } },
    select: { id: true, createdAt: true, expiresAt: true, userAgent: true },
    orderBy: { id: "desc" },
  });
}

/** Ends one of an operator's sessions; false when it is not theirs (or already gone). */
export async function deleteSessionOf(db: Database, operatorId: number, sessionId: number) {
  const { count } = await db.prisma.operatorSession.deleteMany({ where: { id: sessionId, operatorId } });
  return count > 0;
}

/** A new password hash; every other session of the operator ends in the same transaction. */
export async function setPasswordHash(
  db: Database,
  operatorId: number,
  passwordHash: string,
  keepSessionId?: number,
  /** Only while the password is still this one (two changes at once: the second finds it changed). */
  expectedHash?: string,
): Promise<boolean> {
  return db.prisma.$transaction(async (tx) => {
    const { count } = await tx.operator.updateMany({
      where: { id: operatorId, ...(expectedHash !== undefined ? { passwordHash: expectedHash } : {}) },
      data: { passwordHash },
    });
    if (count === 0) return false;
    await tx.operatorSession.deleteMany({ where: { operatorId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) } });
    return true;
  });
}

/** Deletes the session of `token`; its id, or null when there was none. */
export async function deleteSession(db: Database, token: string): Promise<number | null> {
  const session = await db.prisma.operatorSession.findUnique({ where: { tokenHash: sha256(token) }, select: { id: true } });
  if (!session) return null;
  await db.prisma.operatorSession.deleteMany({ where: { id: session.id } });
  return session.id;
}

export function deleteExpiredSessions(db: Database, now: Date) {
  return db.prisma.operatorSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
