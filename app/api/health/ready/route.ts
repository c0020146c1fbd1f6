import { json } from "@/lib/http/respond";
import { log } from "@/lib/log";
import { describeReadiness } from "@/lib/server/health";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** Readiness: 200 once the database answers, migrations are applied and each channel's identity is known; else 503. */
export async function GET() {
  try {
    const readiness = await describeReadiness(await getApp());
    return json(readiness, readiness.status === "ready" ? 200 : 503);
  } catch (error) {
    // Anonymous callers never see raw errors (they can name hosts, users, paths).
    log.error("health.failed", { error });
    return json({ status: "not_ready", database: { ok: false, error: "unavailable (see the server log)" } }, 503);
  }
}
