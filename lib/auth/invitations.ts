import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Database } from "../db/database";
import { acceptInvitation as claimInvitation, createInvitation, findOpenInvitation, revokeInvitation } from "../db/invitations";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";
import { displayNameSchema } from "./display-name";
import { openSession, refuseNameOfAnother, setupSchema, type Caller } from "./operators";
import { hashPassword } from "./password";
import type { Role } from "./roles";
import { SignInThrottle } from "./throttle";

/** How long an invitation link works: long enough to pass on over a weekend. */
export const INVITATION_TTL_MS = 72 * 3600 * 1000;

export const acceptInvitationSchema = z.strictObject({
  /** The token from the link's fragment (`/invite#<token>`). */
  token: z.string().trim().min(1, "the invitation link is incomplete").max(128),
  name: setupSchema.shape.name,
  displayName: displayNameSchema.optional(),
  password: setupSchema.shape.password,
});

/** `POST /api/auth/invitation/check`: only the token, asked before the invitee fills in the form. */
export const checkInvitationSchema = acceptInvitationSchema.pick({ token: true });

/**
 * Wrong tokens count like failed sign-ins, per client: guessing 256-bit tokens
 * is hopeless anyway, this keeps a guesser from costing the server anything.
 */
const throttle = new SignInThrottle();
const THROTTLE_NAME = "(invitation)";

/**
 * An admin invites an operator with a role (admins only, as its route declares): a one-time link to pass on, valid
 * for INVITATION_TTL_MS. Only the token's hash is stored; the token is returned
 * this once.
 */
export async function inviteOperator(db: Database, caller: Caller, role: Role, now = new Date()) {
  const token = randomBytes(32).toString("base64url");
  const invitation = await createInvitation(db, {
    token,
    role,
    createdBy: caller.operator.name,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  publish(db, { type: "operators" });
  return { invitation, token, path: `/invite#${token}` };
}

/** An admin withdraws an invitation nobody used yet (admins only, as its route declares). */
export async function withdrawInvitation(db: Database, id: number, now = new Date()) {
  if (!(await revokeInvitation(db, id, now))) throw notFound("open invitation");
  publish(db, { type: "operators" });
}

/**
 * The invitee sets their sign-in name, display name and password; the
 * invitation is used up and the new operator is signed in. A link that is
 * unknown, used, withdrawn or expired gets one answer for all four.
 */
export async function acceptInvitation(
  db: Database,
  input: z.infer<typeof acceptInvitationSchema>,
  clientKey: string,
  now = new Date(),
  userAgent: string | null = null,
) {
  // Checked before hashing, so a wrong token costs no scrypt.
  await checkInvitation(db, input.token, clientKey, now);
  // The new operator's names may not read as anyone else's, as a display name change may not.
  await refuseNameOfAnother(db, null, input.name);
  if (input.displayName) await refuseNameOfAnother(db, null, input.displayName);
  const passwordHash = await hashPassword(input.password);
  const result = await claimInvitation(
    db,
    { token: input.token, name: input.name, displayName: input.displayName ?? null, passwordHash },
    now,
  );
  if (!result.ok) {
    if (result.reason === "name_taken") throw new AppError("conflict", `the name ${input.name} is taken; choose another`);
    throw invalidInvitation();
  }
  publish(db, { type: "operators" });
  return openSession(db, result.operator, now, userAgent);
}

const invalidInvitation = () =>
  new AppError("not_found", "this invitation link is not valid: it was used, withdrawn or has expired; ask an admin for a new one");

/**
 * Whether an invitation link still works: the invite page asks first, so a used link says
 * so before anyone fills in the form. Unknown, used, withdrawn and expired get one answer.
 * Only wrong tokens are throttled: a guesser (or five typos behind a shared address) must
 * never lock out a real invitee.
 */
export async function checkInvitation(db: Database, token: string, clientKey: string, now = new Date()): Promise<void> {
  if (await findOpenInvitation(db, token, now)) return;
  const decision = throttle.check(clientKey, THROTTLE_NAME, now.getTime());
  if (!decision.ok) throw new AppError("rate_limited", `too many attempts; try again in ${decision.retryAfterSeconds} s`);
  throw invalidInvitation();
}
