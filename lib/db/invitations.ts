import type { Database } from "./database";
import { isUniqueViolation } from "./errors";
import { sha256 } from "./operators";

const invitationView = { id: true, role: true, createdBy: true, expiresAt: true, createdAt: true } as const;

/** Stores only the token's hash: a leaked database opens no invitation. */
export function createInvitation(db: Database, input: { token: string; role: string; createdBy: string; expiresAt: Date }) {
  return db.prisma.operatorInvitation.create({
    data: { tokenHash: sha256(input.token), role: input.role, createdBy: input.createdBy, expiresAt: input.expiresAt },
    select: invitationView,
  });
}

/** Invitations still usable: not accepted, not withdrawn, not expired. */
export function listOpenInvitations(db: Database, now: Date) {
  return db.prisma.operatorInvitation.findMany({
    where: { acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    select: invitationView,
    orderBy: { id: "asc" },
  });
}

/** An invitation that can still be accepted with this token, or null. */
export function findOpenInvitation(db: Database, token: string, now: Date) {
  return db.prisma.operatorInvitation.findFirst({
    where: { tokenHash: sha256(token), acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    select: invitationView,
  });
}

/** Withdraws an open invitation; false when there is none with that id still open. */
export async function revokeInvitation(db: Database, id: number, now: Date) {
  const { count } = await db.prisma.operatorInvitation.updateMany({
    where: { id, acceptedAt: null, revokedAt: null },
    data: { revokedAt: now },
  });
  return count > 0;
}

/** Thrown inside the transaction so the claim rolls back. */
class NameTaken extends Error {}

export type AcceptResult =
  | { ok: true; operator: { id: number; name: string; role: string } }
  | { ok: false; reason: "invalid" | "name_taken" };

/**
 * Uses the invitation and creates its operator in one transaction. The claim is
 * one conditional UPDATE, so of two requests with the same link exactly one wins;
 * a taken name rolls the claim back and the link stays usable.
 */
/** The invitation's author is no longer an active admin (the transaction rolls back: the link stays unused, and void). */
class InviterGone extends Error {}

export async function acceptInvitation(
  db: Database,
  input: { token: string; name: string; displayName: string | null; passwordHash: string },
  now: Date,
): Promise<AcceptResult> {
  const tokenHash = sha256(input.token);
  try {
    return await db.prisma.$transaction(async (tx): Promise<AcceptResult> => {
      const claimed = await tx.operatorInvitation.updateMany({
        where: { tokenHash, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
        data: { acceptedAt: now },
      });
      if (claimed.count === 0) return { ok: false, reason: "invalid" };
      const invitation = await tx.operatorInvitation.findUniqueOrThrow({ where: { tokenHash } });
      // An invitation speaks for the admin who made it: once they are removed, disabled or no longer
      // an admin, it is void (else a removed admin's link would let them back in).
      if (invitation.createdBy !== "api") {
        const inviter = await tx.operator.findUnique({ where: { name: invitation.createdBy } });
        if (inviter?.role !== "admin" || inviter.disabledAt || inviter.removedAt) throw new InviterGone();
      }
      // Names differing only in case would pass for each other in the history.
      const names = await tx.operator.findMany({ select: { name: true } });
      if (names.some((o) => o.name.toLowerCase() === input.name.toLowerCase())) throw new NameTaken();
      const operator = await tx.operator.create({
        data: { name: input.name, displayName: input.displayName, passwordHash: input.passwordHash, role: invitation.role },
        select: { id: true, name: true, role: true },
      });
      await tx.operatorInvitation.update({ where: { id: invitation.id }, data: { operatorId: operator.id } });
      return { ok: true, operator };
    });
  } catch (error) {
    if (error instanceof NameTaken || isUniqueViolation(error)) return { ok: false, reason: "name_taken" };
    if (error instanceof InviterGone) return { ok: false, reason: "invalid" };
    throw error;
  }
}
