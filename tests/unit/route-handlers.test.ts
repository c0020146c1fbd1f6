import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Every route.ts under app/. */
function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** Each `.worker` or `.kick` a file reads, as `file:line`. */
function workerUses(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && (node.name.text === "worker" || node.name.text === "kick")) {
      found.push(`${relative(process.cwd(), file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// check:imports keeps lib/db out of routes (.dependency-cruiser.cjs); the worker is not an import but a
// property of the app the wrapper hands in, so this reads the routes for it.
describe("route handlers", () => {
  it("never kick the worker: an operation that makes work does (lib/api/*/…, handed the app's worker)", () => {
    const files = routeFiles(join(process.cwd(), "app"));
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(workerUses)).toEqual([]);
  });
});
