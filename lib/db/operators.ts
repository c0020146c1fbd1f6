import { createHash } from "node:crypto";
import type { Db } from "./client";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

export function countOperators(db: Db) {
  return db.operator.count();
}

export function findOperatorByName(db: Db, name: string) {
  return db.operator.findUnique({ where: { name } });
}

export function createOperator(db: Db, input: { name: string; passwordHash: string }) {
  return db.operator.create({ data: input });
}

/** Stores only the hash of the cookie token, so a leaked database opens no session. */
export function createSession(db: Db, input: { operatorId: number; token: string; csrfToken: string; expiresAt: Date }) {
  return db.operatorSession.create({
    data: { operatorId: input.operatorId, tokenHash: sha256(input.token), csrfToken: input.csrfToken, expiresAt: input.expiresAt },
  });
}

export async function findLiveSession(db: Db, token: string, now: Date) {
  const session = await db.operatorSession.findUnique({
    where: { tokenHash: sha256(token) },
    include: { operator: { select: { id: true, name: true } } },
  });
  return session && session.expiresAt > now ? session : null;
}

export function deleteSession(db: Db, token: string) {
  return db.operatorSession.deleteMany({ where: { tokenHash: sha256(token) } });
}

export function deleteExpiredSessions(db: Db, now: Date) {
  return db.operatorSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
