import { z } from "zod";
import { AppError } from "../errors";

/**
 * What an operator may do. `admin`: everything, including settings, the simulator
 * and managing operators. `agent`: conversations only (read, reply, take over,
 * forks, envelopes from themselves). The API token counts as an admin: whoever
 * holds it configured the server.
 */
export const roleSchema = z.enum(["admin", "agent"]);
export type Role = z.infer<typeof roleSchema>;

/** A stored role as a Role; anything unexpected is the lesser one. */
export const asRole = (value: string): Role => (value === "admin" ? "admin" : "agent");

/** Refuses callers who are not admins, naming what they tried (403). */
export function requireAdmin(caller: { operator: { name: string }; role: Role }, what: string) {
  if (caller.role !== "admin") throw new AppError("forbidden", `only an admin can ${what}; ${caller.operator.name} is an agent`);
}
