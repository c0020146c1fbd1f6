// Loads Prisma's WebAssembly schema engine (the npm package
// @prisma/schema-engine-wasm) with a driver adapter, so migrations can be
// authored on machines that cannot download Prisma's native engine.
//
// Node 22 and 24 `import` a .wasm file only behind --experimental-wasm-modules,
// so the module is compiled by hand and wired to its wasm-bindgen glue, as the
// glue's bundler entry would do.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
// Tables hand-written migrations create that Prisma's schema language cannot describe
// (SQLite's FTS5 full-text index and its shadow tables): not drift. Only the
// database diff (db:check, SQLite) needs them; a datamodel diff has none, and the
// PostgreSQL engine would reject unqualified names.
const noFilters = { externalTables: [], externalEnums: [] };
const sqliteDatabaseFilters = {
  externalTables: [
    "MessageSearch",
    "MessageSearch_data",
    "MessageSearch_idx",
    "MessageSearch_docsize",
    "MessageSearch_config",
    "MessageSearch_content",
    "MessageTrigram",
    "MessageTrigram_data",
    "MessageTrigram_idx",
    "MessageTrigram_docsize",
    "MessageTrigram_config",
    "MessageTrigram_content",
  ],
  externalEnums: [],
};

/**
 * @param {"sqlite" | "postgresql"} provider
 * @param {string} url database the engine may connect to (a pure diff never does)
 * @param {string} datamodel
 */
export async function openSchemaEngine(provider, url, datamodel) {
  const pkgDir = dirname(require.resolve("@prisma/schema-engine-wasm"));
  const glue = await import(join(pkgDir, "schema_engine_bg.js"));
  // The engine reports a Rust panic's message here before it throws.
  globalThis.PRISMA_WASM_PANIC_REGISTRY ??= { set_message: (message) => console.error(`schema engine panic: ${message}`) };
  const module = new WebAssembly.Module(readFileSync(join(pkgDir, "schema_engine_bg.wasm")));
  const imports = {};
  for (const { module: name } of WebAssembly.Module.imports(module)) imports[name] = glue;
  const instance = new WebAssembly.Instance(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();

  const { bindMigrationAwareSqlAdapterFactory } = await import("@prisma/driver-adapter-utils");
  const factory =
    provider === "sqlite"
      ? new (await import("@prisma/adapter-better-sqlite3")).PrismaBetterSqlite3({ url })
      : new (await import("@prisma/adapter-pg")).PrismaPg({ connectionString: url });
  return glue.SchemaEngine.new({ datamodels: [["schema.prisma", datamodel]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
}

/** Runs `diff` and returns the SQL script. */
async function diffToScript(engine, from, to, filters = noFilters) {
  const { stdout } = await engine.diff({ from, to, script: true, exitCode: null, filters });
  return stdout ?? "";
}

/** SQL that turns a database of datamodel `from` (null: empty) into one of `to`. */
export async function diffDatamodels(provider, from, to) {
  const url = provider === "sqlite" ? "file::memory:" : "postgres://postgres@127.0.0.1:5432/postgres";
  const engine = await openSchemaEngine(provider, url, to);
  const model = (content) => ({ tag: "schemaDatamodel", files: [{ path: "schema.prisma", content }] });
  return diffToScript(engine, from ? model(from) : { tag: "empty" }, model(to));
}

/** SQL that would turn the live database at `url` into `datamodel` ("" when they match). */
export async function diffDatabase(provider, url, datamodel) {
  const engine = await openSchemaEngine(provider, url, datamodel);
  const files = [{ path: "schema.prisma", content: datamodel }];
  return diffToScript(
    engine,
    { tag: "schemaDatasource", files, configDir: process.cwd() },
    { tag: "schemaDatamodel", files },
    provider === "sqlite" ? sqliteDatabaseFilters : noFilters,
  );
}
