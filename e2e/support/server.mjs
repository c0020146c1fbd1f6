// The e2e app server: a fresh SQLite file each run, then the same start path as `npm start`.
import { rmSync } from "node:fs";
import { sqlitePath } from "../../lib/db/migrations.mjs";

const file = sqlitePath(process.env.DATABASE_URL);
for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
await import("../../scripts/start.mjs");
