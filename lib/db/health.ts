import type { Database } from "./database";
import { log } from "../log";
import { providerOf } from "./migrations.mjs";

/** One round trip to the database; reports the provider and how long it took. */
export async function checkDatabase(db: Database, url: string) {
  const provider = providerOf(url);
  const started = performance.now();
  try {
    await db.prisma.$queryRawUnsafe("SELECT 1");
    return { ok: true, provider, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    // The raw message can name hosts, users and paths: it goes to the log, not to anonymous callers.
    log.error("health.database_failed", { error });
    return { ok: false, provider, error: "unreachable (see the server log)" };
  }
}
