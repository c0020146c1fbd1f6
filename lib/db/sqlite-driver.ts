import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * The better-sqlite3 that Prisma's SQLite adapter loads, for the threads that open
 * connections of their own (checkpoints, bounded reads).
 *
 * One process must hold one copy of SQLite: POSIX locks belong to the process, and
 * SQLite only keeps them right across connections of the same library copy. With
 * the adapter on better-sqlite3 12 and the threads on 13, whole committed
 * transactions disappeared under checkpoints (seen: 50–100 of 1,000 acknowledged
 * rows gone in tests/integration/sql-transactions.test.ts). package.json's
 * `overrides` keeps one copy installed; resolving from the adapter keeps the
 * threads on its copy even if that ever slips.
 */
export function sqliteDriverPath(): string {
  const project = createRequire(join(process.cwd(), "package.json"));
  const adapter = createRequire(project.resolve("@prisma/adapter-better-sqlite3"));
  return adapter.resolve("better-sqlite3");
}
