import type { Database } from "../db/database";
import { changeOperator, type OperatorChange } from "../db/operator-changes";
import { listOpenInvitations } from "../db/invitations";
import { findOperatorById, listOperators, type OperatorRow } from "../db/operators";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";
import { changeDisplayName, type Caller } from "./operators";
import { botScopeOf, checkBotIds } from "./bot-scope";
import { asRole, requireAdmin, type Role } from "./roles";

export type OperatorStatus = "active" | "disabled" | "removed";

/** An operator as the API shows them (never a hash). */
export function operatorView(row: OperatorRow) {
  const status: OperatorStatus = row.removedAt ? "removed" : row.disabledAt ? "disabled" : "active";
  // The limit as stored (kept while an admin, applied again if demoted); its effect is botScopeOf's.
  const botIds = botScopeOf("agent", row.botIds);
  return { id: row.id, name: row.name, displayName: row.displayName, role: asRole(row.role), status, botIds, createdAt: row.createdAt };
}

/**
 * Every operator (removed ones too: their names still sign the history), and
 * for admins the open invitations. Agents see the team, not the invitations.
 */
export async function listTeam(db: Database, caller: Caller, now = new Date()) {
  const [operators, invitations] = await Promise.all([
    listOperators(db),
    caller.role === "admin" ? listOpenInvitations(db, now) : Promise.resolve([]),
  ]);
  return {
    operators: operators.map(operatorView),
    invitations: invitations.map((i) => ({ ...i, role: asRole(i.role) })),
    me: caller.via === "session" ? caller.operator.id : null,
    role: caller.role,
  };
}

export type OperatorUpdate = { displayName?: string | null; role?: Role; disabled?: boolean; botIds?: number[] | null };

/**
 * PATCH /operators/{id}: a display name (one's own, or an admin's for anyone),
 * a role, disabled or enabled, the bots an agent is limited to (admins only). Never
 * leaves the team without an active admin. Every open console and event stream hears
 * of it; a new limit applies from the operator's next request (read on each).
 */
export async function updateOperator(db: Database, caller: Caller, id: number, update: OperatorUpdate, now = new Date()) {
  if (update.role !== undefined || update.disabled !== undefined) requireAdmin(caller, "change roles or disable operators");
  if (update.botIds !== undefined) requireAdmin(caller, "limit operators to some bots");
  if (update.botIds) await checkBotIds(db, update.botIds);
  const change: OperatorChange = { role: update.role, disabled: update.disabled, botIds: update.botIds };
  if (change.role !== undefined || change.disabled !== undefined || change.botIds !== undefined) {
    const result = await changeOperator(db, id, change, now);
    if (!result.ok) throw refusal(result.reason);
  }
  if (update.displayName !== undefined) await changeDisplayName(db, caller, id, update.displayName);
  publish(db, { type: "operators" });
  const row = await findOperatorById(db, id);
  if (!row) throw notFound("operator");
  return operatorView(row);
}

/** DELETE /operators/{id} (admins only, as the route declares): removes an operator; their sessions end, their history keeps their name. */
export async function removeOperator(db: Database, id: number, now = new Date()) {
  const result = await changeOperator(db, id, { remove: true }, now);
  if (!result.ok) throw refusal(result.reason);
  publish(db, { type: "operators" });
  publish(db, { type: "settings" });
  return operatorView(result.operator);
}

function refusal(reason: "not_found" | "last_admin") {
  if (reason === "not_found") return notFound("operator");
  return new AppError("conflict", "this is the last admin: make another operator an admin first");
}
