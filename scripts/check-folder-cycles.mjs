#!/usr/bin/env node
// No two lib/ folders import each other (type-only imports count): a folder pair that
// does is one concern split in two, or a layer upside down. dependency-cruiser's own
// folder scope (`scope: "folder"`) reports every cycle of any length and treats lib/'s
// own files (log.ts, env.ts…) as one folder, so this reads its graph and checks pairs.
// A file directly in lib/ is a unit of its own (lib/log.ts is "log").
// Part of `npm run check:imports`. Exit 1 with each pair and the files that import.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The package exports no path to its CLI: its package.json names it (the file was renamed in 18).
const root = new URL("../node_modules/dependency-cruiser/", import.meta.url);
const bin = fileURLToPath(new URL(JSON.parse(readFileSync(new URL("package.json", root), "utf8")).bin.depcruise, root));
const json = execFileSync(process.execPath, [bin, "lib", "--config", ".dependency-cruiser.cjs", "--output-type", "json"], {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  encoding: "utf8",
  maxBuffer: 256 * 1024 * 1024,
});

/** The unit a lib/ path belongs to: its top folder, or the file's name for a file directly in lib/. */
function unitOf(path) {
  const match = /^lib\/([^/]+)(\/)?/.exec(path);
  if (!match) return null;
  return match[2] ? match[1] : match[1].replace(/(\.d)?\.(ts|mts|mjs|js)$/, "");
}

const edges = new Map();
for (const module of JSON.parse(json).modules) {
  const from = unitOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = unitOf(dependency.resolved);
    if (!to || to === from) continue;
    const key = `${from}→${to}`;
    if (!edges.has(key)) edges.set(key, []);
    const type = dependency.dependencyTypes.includes("type-only") ? " (type)" : "";
    edges.get(key).push(`${module.source} → ${dependency.resolved}${type}`);
  }
}

const found = [];
for (const [key, files] of edges) {
  const [a, b] = key.split("→");
  if (a > b || !edges.has(`${b}→${a}`)) continue;
  const pair = { name: `${a} ↔ ${b}`, files: [...files, ...edges.get(`${b}→${a}`)] };
  found.push(pair);
}

if (found.length === 0) {
  console.log("no two lib/ folders import each other");
  process.exit(0);
}
for (const pair of found) {
  console.error(`error no-folder-pairs: lib/${pair.name.replace(" ↔ ", " ↔ lib/")} import each other:`);
  for (const file of pair.files) console.error(`    ${file}`);
}
console.error(
  `\n${found.length} pair(s) of lib/ folders import each other: move the file to the folder that owns the concept, move shared types down, or hand the dependency in.`,
);
process.exit(1);
