import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
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

/**
 * Whether every migration shipped with the server (prisma/migrations/<provider>
 * under the working directory, as `npm start` runs) is recorded as finished in
 * `_prisma_migrations`, and none is left half-applied.
 */
export async function checkMigrations(db: Database, url: string) {
  const provider = providerOf(url);
  try {
    const rows = await db.read<{ migration_name: string; finished_at: unknown; rolled_back_at: unknown }>(
      `SELECT "migration_name", "finished_at", "rolled_back_at" FROM "_prisma_migrations"`,
    );
    const applied = new Set(rows.filter((r) => r.finished_at !== null && r.rolled_back_at === null).map((r) => r.migration_name));
    const unfinished = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null).map((r) => r.migration_name);
    const dir = join(process.cwd(), "prisma/migrations", provider);
    const shipped = existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
      : [];
    const pending = shipped.filter((name) => !applied.has(name)).sort();
    return { ok: pending.length === 0 && unfinished.length === 0, applied: applied.size, pending, unfinished };
  } catch (error) {
    log.error("health.migrations_failed", { error });
    return { ok: false, applied: 0, pending: [], unfinished: [], error: "unreadable (see the server log)" };
  }
}
