// Where a server's CPU went: reads a .cpuprofile (BENCH_CPU_PROF=<dir> on bench/answer-latency.mts),
// maps the production build's bundled frames back to their sources through the build's source
// maps, and prints self time by source file, inclusive time by function and by directory.
//   node scripts/cpu-profile-summary.mjs <file.cpuprofile> [regex of functions to list]
import { readFileSync, existsSync } from "node:fs";
import { SourceMapConsumer } from "source-map-js";
const p = JSON.parse(readFileSync(process.argv[2], "utf8"));
const nodes = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
for (const [i, s] of p.samples.entries()) self.set(s, (self.get(s) ?? 0) + p.timeDeltas[i]);
const maps = new Map();
function label(n) {
  if (n.label) return n.label;
  const cf = n.callFrame;
  const url = cf.url.replace("file://", "");
  let out;
  if (url.includes("/.next/") && url.endsWith(".js")) {
    if (!maps.has(url))
      maps.set(url, existsSync(`${url}.map`) ? new SourceMapConsumer(JSON.parse(readFileSync(`${url}.map`, "utf8"))) : null);
    const m = maps.get(url);
    const o = m?.originalPositionFor({ line: cf.lineNumber + 1, column: cf.columnNumber });
    if (o?.source) {
      const src = o.source.replace(/^.*?\[project\]\//, "").replace(/^turbopack:\/\/\//, "");
      out = { file: src, fn: `${o.name ?? cf.functionName ?? "?"} ${src}:${o.line}` };
    }
  }
  if (!out) {
    const file = url.includes("node_modules/") ? url.split("node_modules/").at(-1) : url || `(native ${cf.functionName})`;
    out = { file, fn: `${cf.functionName || "(anon)"} ${file}:${cf.lineNumber}` };
  }
  n.label = out;
  return out;
}
const byFile = new Map(),
  byFnInc = new Map(),
  byFileInc = new Map();
let total = 0;
for (const [id, t] of self) {
  total += t;
  const n = nodes.get(id);
  const l = label(n);
  byFile.set(l.file, (byFile.get(l.file) ?? 0) + t);
  const seenFn = new Set(),
    seenFile = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const lx = label(nodes.get(x));
    seenFn.add(lx.fn);
    seenFile.add(lx.file.replace(/\/[^/]*$/, "/"));
  }
  for (const f of seenFn) byFnInc.set(f, (byFnInc.get(f) ?? 0) + t);
  for (const f of seenFile) byFileInc.set(f, (byFileInc.get(f) ?? 0) + t);
}
const top = (m, k, filter = () => true) =>
  [...m]
    .filter(([x]) => filter(x))
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([x, t]) => `${(t / 1000).toFixed(0).padStart(7)} ${x}`)
    .join("\n");
console.log("total ms", (total / 1000).toFixed(0));
console.log(`== self by file\n${top(byFile, 40)}`);
const f = process.argv[3] ? new RegExp(process.argv[3]) : () => true;
console.log(
  "== inclusive by function (filter " +
    (process.argv[3] ?? "none") +
    ")\n" +
    top(byFnInc, 70, (x) => (typeof f === "function" ? true : f.test(x))),
);
console.log(`== inclusive by dir\n${top(byFileInc, 40)}`);
