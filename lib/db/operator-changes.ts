import type { Database, PrismaDb } from "./database";
import { Prisma } from "./generated/sqlite/client";
import { findOperatorById, type OperatorRow } from "./operators";

type Tx = Parameters<Parameters<PrismaDb["$transaction"]>[0]>[0];

/** What an admin changes about an operator. */
export type OperatorChange = {
  role?: "admin" | "agent";
  disabled?: boolean;
  remove?: true;
  /** The bots an agent is limited to; null = every bot (ids checked by the caller). */
  botIds?: number[] | null;
};
export type OperatorChangeResult = { ok: true; operator: OperatorRow } | { ok: false; reason: "not_found" | "last_admin" };

/**
 * The ids of the operators who are admins now (not disabled, not removed), locked
 * until the transaction ends. On PostgreSQL `FOR UPDATE` makes two admins demoting
 * each other at once take turns: the second waits for the first to commit, then
 * no longer sees the demoted one as an admin. SQLite runs one transaction at a time.
 */
async function lockActiveAdmins(tx: Tx, dialect: Database["dialect"]): Promise<number[]> {
  if (dialect === "postgresql") {
    const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM "Operator"
      WHERE role = 'admin' AND "disabledAt" IS NULL AND "removedAt" IS NULL ORDER BY id FOR UPDATE`;
    return rows.map((r) => Number(r.id));
  }
  const rows = await tx.operator.findMany({ where: { role: "admin", disabledAt: null, removedAt: null }, select: { id: true } });
  return rows.map((r) => r.id);
}

/**
 * Changes an operator's role, disables or enables them, or removes them, in one
 * transaction that keeps at least one active admin. Disabling and removing delete
 * their sessions in the same transaction (signed out at their next request). A
 * removed operator's row stays, its password unusable, so `operator:<name>` in the
 * history keeps its author and nobody new can take the name.
 */
export async function changeOperator(db: Database, id: number, change: OperatorChange, now: Date): Promise<OperatorChangeResult> {
  const result = await db.prisma.$transaction(async (tx): Promise<OperatorChangeResult | { ok: true }> => {
    const admins = await lockActiveAdmins(tx, db.dialect);
    const target = await tx.operator.findUnique({ where: { id } });
    if (!target || target.removedAt) return { ok: false, reason: "not_found" };
    const disabledAfter = change.disabled ?? Boolean(target.disabledAt);
    const adminAfter = !change.remove && !disabledAfter && (change.role ?? target.role) === "admin";
    if (admins.includes(id) && !adminAfter && admins.length <= 1) return { ok: false, reason: "last_admin" };
    await tx.operator.update({
      where: { id },
      data: {
        role: change.role,
        disabledAt: change.disabled === undefined ? undefined : change.disabled ? (target.disabledAt ?? now) : null,
        ...(change.remove ? { removedAt: now, passwordHash: "removed" } : {}),
        // SQL NULL (every bot), not a JSON null; one marker runtime for both clients.
        ...(change.botIds !== undefined
          ? { botIds: (change.botIds === null ? Prisma.DbNull : [...new Set(change.botIds)].sort((a, b) => a - b)) as never }
          : {}),
      },
    });
    if (change.remove || disabledAfter) await tx.operatorSession.deleteMany({ where: { operatorId: id } });
    return { ok: true };
  });
  if (!result.ok) return result;
  const operator = await findOperatorById(db, id);
  return operator ? { ok: true, operator } : { ok: false, reason: "not_found" };
}
