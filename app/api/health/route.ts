import { checkDatabase } from "@/lib/db/health";
import { json } from "@/lib/http/respond";
import { appContext } from "@/lib/server/context";

export const dynamic = "force-dynamic";

/** Liveness and database reachability, for load balancers and `npm start` checks. */
export async function GET() {
  try {
    const { db, env } = await appContext();
    const database = await checkDatabase(db, env.DATABASE_URL);
    return json({ status: database.ok ? "ok" : "degraded", database }, database.ok ? 200 : 503);
  } catch (error) {
    return json({ status: "down", database: { ok: false, error: (error as Error).message } }, 503);
  }
}
