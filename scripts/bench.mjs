// `npm run bench`: runs every benchmark under bench/ (one process each, in turn),
// prints a table and writes docs/BENCHMARKS.md with the machine, the command and
// the date. Every figure is paired with a baseline measured in the same run.
//   npm run bench                 all of them
//   npm run bench -- context      only those whose file name contains "context"
//   npm run bench -- answer --write   only those, and replace their rows in docs/BENCHMARKS.md
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { projectRoot } from "../lib/db/migrations.mjs";

const filter = process.argv.slice(2).find((a) => !a.startsWith("--"));
const writeFiltered = process.argv.includes("--write");
const files = readdirSync(join(projectRoot, "bench"))
  .filter((f) => f.endsWith(".mts") && !["server.mts"].includes(f) && (!filter || f.includes(filter)))
  .sort();
const tsx = join(projectRoot, "node_modules/tsx/dist/cli.mjs");
const rows = [];
for (const file of files) {
  console.log(`\n▶ bench/${file}`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [tsx, join("bench", file)], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 20 * 60_000,
  });
  const found = (run.stdout ?? "")
    .split("\n")
    .filter((l) => l.startsWith("BENCH_RESULT "))
    .map((l) => JSON.parse(l.slice(13)));
  if (run.status !== 0) console.error(`  failed (exit ${run.status})`);
  for (const row of found)
    console.log(
      `  ${row.case} · ${row.metric}: ${row.value} ${row.unit}${row.baseline !== undefined ? ` (baseline ${row.baseline}${row.ratio !== undefined ? `, ratio ${row.ratio}` : ""})` : ""}${row.met === undefined ? "" : row.met ? " ✓" : " ✗"}`,
    );
  rows.push(
    ...found.map((r) => ({ ...r, file })),
    ...(found.length === 0 ? [{ file, bench: file, case: "failed", metric: "-", value: NaN, unit: "", note: `exit ${run.status}` }] : []),
  );
  console.log(`  (${Math.round((Date.now() - started) / 1000)} s)`);
}

if (filter && writeFiltered) mergeIntoDoc(rows);

if (!filter) {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  // BENCH_SERVER_NODE (bench/server.mts): the servers ran on another Node.js than this one.
  const serverNode = () => {
    const path = process.env.BENCH_SERVER_NODE;
    if (!path) return "";
    const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim();
    return ` (the servers on Node ${version || path}, \`BENCH_SERVER_NODE\`)`;
  };
  const table = [
    "| benchmark | case | metric | value | baseline (same run) | ratio | target | met |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(tableRow),
  ].join("\n");
  const notes = rows
    .filter((r) => r.note)
    .map((r) => `- ${r.bench}, ${r.case}: ${r.note}`)
    .join("\n");
  const postgres = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  const command = postgres ? "BENCH_DATABASE_URL=postgres://… npm run bench" : "npm run bench";
  const doc = `# Benchmarks

Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB,
Node ${process.version}${serverNode()}, production build (\`npm start\`'s path), SQLite in WAL mode with
\`synchronous = NORMAL\`${postgres ? " and PostgreSQL on the same machine" : " (PostgreSQL cases skipped: no BENCH_DATABASE_URL)"}, load generators
(autocannon; an open-loop generator for fixed rates) on the same machine over loopback.
Machines here are noisy: read the ratio to the baseline measured in the same run,
not the absolute figure. Files: \`bench/*.mts\`; the runner is \`scripts/bench.mjs\`.

${table}

Notes:
${notes}

${readNotes()}
`;
  writeFileSync(join(projectRoot, "docs/BENCHMARKS.md"), doc);
  console.log("\nwrote docs/BENCHMARKS.md");
}

function tableRow(r) {
  return `| ${r.bench} | ${r.case} | ${r.metric} | ${r.value} ${r.unit} | ${r.baseline ?? "—"} | ${r.ratio ?? "—"} | ${r.target ?? "—"} | ${r.met === undefined ? "—" : r.met ? "yes" : "**no**"} |`;
}

/**
 * A filtered run with --write: the rows (and notes) of the benchmarks that ran
 * replace their earlier ones in docs/BENCHMARKS.md; every other row stays as it was.
 */
function mergeIntoDoc(rows) {
  const path = join(projectRoot, "docs/BENCHMARKS.md");
  const names = new Set(rows.map((r) => r.bench));
  const lines = readFileSync(path, "utf8").split("\n");
  // Table cells may be padded (a formatter aligns the columns): "| thread page    |".
  const mine = (line) => [...names].some((n) => new RegExp(`^\\| ${escapeRegExp(n)} +\\|`).test(line) || line.startsWith(`- ${n}, `));
  const kept = lines.filter((line) => !mine(line));
  const lastRow = kept.findLastIndex((l) => l.startsWith("| ") && !l.startsWith("| ---"));
  kept.splice(lastRow + 1, 0, ...rows.map(tableRow));
  const notesAt = kept.indexOf("Notes:");
  const lastNote = kept.findIndex((l, i) => i > notesAt && !l.startsWith("- "));
  kept.splice(lastNote, 0, ...rows.filter((r) => r.note).map((r) => `- ${r.bench}, ${r.case}: ${r.note}`));
  writeFileSync(path, kept.join("\n"));
  console.log(`\nupdated ${[...names].join(", ")} in docs/BENCHMARKS.md`);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Hand-written analysis kept beside the generated table (bench/NOTES.md). */
function readNotes() {
  const path = join(projectRoot, "bench/NOTES.md");
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
