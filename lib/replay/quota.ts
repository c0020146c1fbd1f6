import type { Caller } from "../auth/operators";
import type { Database } from "../db/database";
import { replaysAskedSince } from "../db/replays";
import { AppError } from "../errors";
import { getSettings } from "../settings/store";

const DAY = 86_400_000;

/**
 * An agent's replays per UTC day (setting `replaysPerAgentPerDay`): each one is a
 * model call on the deployment's key, so an agent's experiments are bounded;
 * admins (who own the keys and the setting) and the API token are not. `wanted`
 * is 1 for a replay and the dataset's size for a run, counted in full when it
 * starts. A soft bound: two requests at the very edge may both pass.
 */
export async function checkReplayQuota(db: Database, caller: Pick<Caller, "operator" | "role" | "via">, wanted: number, now = new Date()) {
  if (caller.role === "admin" || caller.via === "token") return;
  const { replaysPerAgentPerDay: limit } = await getSettings(db);
  const dayStart = new Date(Math.floor(now.getTime() / DAY) * DAY);
  const used = await replaysAskedSince(db, caller.operator.name, dayStart);
  if (used + wanted <= limit) return;
  const left = Math.max(0, limit - used);
  const name = caller.operator.name;
  throw new AppError(
    "rate_limited",
    wanted > 1
      ? `this run replays ${wanted} turns and ${name} has ${left} of today's ${limit} replays left (setting "Replays per agent per day"; it resets at 00:00 UTC, and an admin is not limited)`
      : `${name} has used today's ${limit} replays (setting "Replays per agent per day"; it resets at 00:00 UTC, and an admin is not limited)`,
    { limit, used, wanted },
    { retryAfterSeconds: Math.ceil((dayStart.getTime() + DAY - now.getTime()) / 1000) },
  );
}
