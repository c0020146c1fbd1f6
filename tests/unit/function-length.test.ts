import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Issue 49: a function longer than this is split into named steps. */
const MAX_LINES = 120;

/** Every .ts file under lib/ but the generated Prisma client. */
function libFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path.endsWith(join("lib", "db", "generated")) ? [] : libFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** A function's name as a reader finds it: its own, or the variable or property it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText();
  return "(anonymous)";
}

/** Each function, method or arrow function over MAX_LINES, as `file:line name (n lines)`. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(fn.getEnd()).line - start + 1;
      if (lines > MAX_LINES) found.push(`${relative(process.cwd(), file)}:${start + 1} ${nameOf(fn)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function length", () => {
  it(`no function in lib/ is over ${MAX_LINES} lines (issue 49: split it into named steps)`, () => {
    const files = libFiles(join(process.cwd(), "lib"));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});
