// Generates both Prisma clients (SQLite and PostgreSQL) offline.
//
// Every prisma CLI command first tries to download the native schema engine,
// which these machines cannot reach; `generate` does not need it, so pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips the download.
// The PostgreSQL schema is derived from prisma/schema.prisma: one source of truth.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const sqliteSchema = join(root, "prisma/schema.prisma");
const postgresSchema = join(root, "prisma/postgres.prisma");

export function derivePostgresSchema(text) {
  const out = text
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output   = "../lib/db/generated/sqlite"', 'output   = "../lib/db/generated/postgres"');
  if (out === text || !out.includes("generated/postgres")) {
    throw new Error("prisma/schema.prisma: expected the sqlite provider and generated/sqlite output lines");
  }
  return `// GENERATED from prisma/schema.prisma by scripts/prisma-generate.mjs. Do not edit.\n${out}`;
}

function main() {
  writeFileSync(postgresSchema, derivePostgresSchema(readFileSync(sqliteSchema, "utf8")));
  const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = existsSync("/bin/false") ? "/bin/false" : process.execPath;
  const cli = join(root, "node_modules/prisma/build/index.js");
  for (const schema of [sqliteSchema, postgresSchema]) {
    execFileSync(process.execPath, [cli, "generate", "--schema", schema], { cwd: root, env, stdio: "inherit" });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
