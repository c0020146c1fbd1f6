// Proves the committed migrations reproduce prisma/schema.prisma: applies them
// with the runner `npm start` uses to a scratch SQLite file, then asks Prisma's
// schema engine for the difference between that database and the datamodel.
// Exits 1 and prints the missing SQL when a schema change has no migration.
//   npm run db:check
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffDatabase } from "./lib/schema-engine.mjs";
import { migrate, projectRoot } from "../lib/db/migrations.mjs";

const dir = mkdtempSync(join(tmpdir(), "switchboard-check-"));
try {
  const url = `file:${join(dir, "check.db")}`;
  await migrate(url);
  const schema = readFileSync(join(projectRoot, "prisma/schema.prisma"), "utf8");
  const drift = (await diffDatabase("sqlite", url, schema)).trim();
  if (drift && !/^-- This is an empty migration\.?$/.test(drift)) {
    console.error("prisma/schema.prisma has changes no migration covers. Run: npm run db:migration -- <name>\n");
    console.error(drift);
    process.exitCode = 1;
  } else {
    console.log("migrations match prisma/schema.prisma");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
