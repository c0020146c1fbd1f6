import { describeHealth } from "@/lib/server/health";
import { json } from "@/lib/http/respond";
import { log } from "@/lib/log";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** Database reachability and channel state, for people and `npm start` checks; orchestrators use /api/health/live and /api/health/ready. */
export async function GET() {
  try {
    const health = await describeHealth(await getApp());
    return json(health, health.database.ok ? 200 : 503);
  } catch (error) {
    // Anonymous callers never see raw errors (they can name hosts, users, paths).
    log.error("health.failed", { error });
    return json({ status: "down", database: { ok: false, error: "unavailable (see the server log)" } }, 503);
  }
}
