import { z } from "zod";
import type { Database } from "../db/database";
import { deleteSessionOf, findOperatorByName, listSessionsOf, setPasswordHash } from "../db/operators";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";
import type { Caller } from "./operators";
import { hashPassword, verifyPassword } from "./password";
import { SignInThrottle } from "./throttle";

/** The body of POST /api/v1/account/password (lib/api/operators.ts documents it). */
export const passwordChangeBody = z.strictObject({
  currentPassword: z.string().min(1, "enter your current password").max(256),
  newPassword: z.string().min(10, "use at least 10 characters").max(256),
});

/** Guesses at the current password through a stolen session are throttled like sign-ins. */
const throttle = new SignInThrottle();

/** The signed-in operator's own account; the API token has none. */
function sessionOf(caller: Caller) {
  if (caller.via !== "session" || caller.sessionId === undefined)
    throw new AppError("forbidden", "the API token has no account; to reset a password run `npm run operator -- reset-password <name>`");
  return { operator: caller.operator, sessionId: caller.sessionId };
}

/**
 * Changes the caller's own password; the current one is required. Every other
 * session of theirs ends (whoever else had it is signed out); this one stays.
 */
export async function changeOwnPassword(
  db: Database,
  caller: Caller,
  input: z.infer<typeof passwordChangeBody>,
  clientKey: string,
  now = new Date(),
) {
  const { operator, sessionId } = sessionOf(caller);
  const decision = throttle.check(clientKey, operator.name, now.getTime());
  if (!decision.ok) throw new AppError("rate_limited", `too many attempts; try again in ${decision.retryAfterSeconds} s`);
  const row = await findOperatorByName(db, operator.name);
  if (!row || !(await verifyPassword(input.currentPassword, row.passwordHash)))
    throw new AppError("forbidden", "the current password is wrong");
  throttle.success(clientKey, operator.name);
  // Conditional on the hash just verified: of two changes at once, the second finds it changed and is refused.
  if (!(await setPasswordHash(db, row.id, await hashPassword(input.newPassword), sessionId, row.passwordHash)))
    throw new AppError("forbidden", "the current password is wrong");
  publish(db, { type: "operators" });
}

/** The caller's live sessions, this one marked. */
export async function listOwnSessions(db: Database, caller: Caller, now = new Date()) {
  if (caller.via === "token") return [];
  const { operator, sessionId } = sessionOf(caller);
  const sessions = await listSessionsOf(db, operator.id, now);
  return sessions.map((s) => ({ ...s, current: s.id === sessionId }));
}

/** Ends one of the caller's own sessions (the current one too: that is signing out). */
export async function endOwnSession(db: Database, caller: Caller, id: number) {
  const { operator } = sessionOf(caller);
  if (!(await deleteSessionOf(db, operator.id, id))) throw notFound("session");
  publish(db, { type: "operators" });
}
