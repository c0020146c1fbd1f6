import type { Caller } from "../auth/operators";
import type { Database } from "../db/database";
import { releaseReplays, replaysReserved, reserveReplays } from "../db/replays";
import { AppError } from "../errors";
import { settingsFor } from "../settings/reader";

/** Who asks for a replay: their name (recorded on it) and whether the daily quota applies to them. */
export type ReplayAsker = { name: string; quota: boolean };

/** Admins (who own the keys and the setting) and the API token are not limited; agents are. */
export function replayAsker(caller: Pick<Caller, "operator" | "role" | "via">): ReplayAsker {
  return { name: caller.operator.name, quota: caller.role !== "admin" && caller.via !== "token" };
}

const DAY_MS = 86_400_000;

/**
 * An agent's replays per UTC day (setting `replaysPerAgentPerDay`): each is a model
 * call on the deployment's key. `wanted` is 1 for a replay and the dataset's size for
 * a run. Reserved in one statement before anything runs, so requests at once cannot
 * share the last one, and never given back when replays are deleted; `release` gives
 * them back when the request is refused before any model call, and `day` is the UTC
 * day they count against (null: not counted), for giving back turns a run never
 * reached (`giveBackUnrun`). Refused: 429, with Retry-After until 00:00 UTC when the
 * request could fit tomorrow.
 */
export async function reserveReplayQuota(
  db: Database,
  asker: ReplayAsker,
  wanted: number,
  now = new Date(),
): Promise<{ day: string | null; release: () => Promise<void> }> {
  if (!Number.isSafeInteger(wanted) || wanted < 1) throw new Error(`replays wanted must be a whole number of at least 1, not ${wanted}`);
  if (!asker.quota) return { day: null, release: async () => {} };
  const { replaysPerAgentPerDay: limit } = await settingsFor(db);
  const day = now.toISOString().slice(0, 10);
  if ((await reserveReplays(db, asker.name, day, wanted, limit)) !== null)
    return { day, release: () => releaseReplays(db, asker.name, day, wanted) };
  const used = await replaysReserved(db, asker.name, day);
  const setting = `setting "Replays per agent per day" (${limit})`;
  const fitsTomorrow = wanted <= limit;
  const message =
    limit === 0
      ? `agents may not run replays (${setting}); an admin can`
      : !fitsTomorrow
        ? `this run replays ${wanted} turns, more than an agent may in a day (${setting}); an admin can run it`
        : wanted > 1
          ? `this run replays ${wanted} turns and ${asker.name} has ${Math.max(0, limit - used)} of today's replays left (${setting}; it resets at 00:00 UTC)`
          : `${asker.name} has used today's replays (${setting}; it resets at 00:00 UTC)`;
  const nextDay = (Math.floor(now.getTime() / DAY_MS) + 1) * DAY_MS;
  throw new AppError(
    "rate_limited",
    message,
    { limit, used, wanted },
    limit > 0 && fitsTomorrow ? { retryAfterSeconds: Math.ceil((nextDay - now.getTime()) / 1000) } : undefined,
  );
}

/**
 * Gives an agent back the replays of a run's turns that never started (the run was
 * interrupted by a stopped server): they made no model call. Turns it started keep
 * counting, whatever became of them.
 */
export async function giveBackUnrun(db: Database, run: { createdBy: string; quotaDay: string | null; unrun: number }) {
  if (run.quotaDay === null || run.unrun <= 0) return;
  await releaseReplays(db, run.createdBy, run.quotaDay, run.unrun);
}
