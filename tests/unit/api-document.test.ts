import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { operations } from "@/lib/api/operations";
import { openApiDocument } from "@/lib/http/openapi";

const API_ROOT = join(process.cwd(), "app/api/v1");
const HTTP_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** The HTTP methods a route file exports: `export const GET = …`, `export async function POST`, `export { x as PATCH }`. */
function exportedMethods(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    } else if (ts.isFunctionDeclaration(statement) && exported(statement) && statement.name) {
      names.push(statement.name.text);
    } else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const specifier of statement.exportClause.elements) names.push(specifier.name.text);
    }
  }
  return names.filter((name) => HTTP_METHODS.has(name));
}

/** app/api/v1/conversations/[id]/route.ts → /conversations/{id}; null for the catch-all (its 404 for unknown paths is not an operation). */
function openApiPath(file: string): string | null {
  const segments = relative(API_ROOT, file).split(sep).slice(0, -1);
  if (segments.some((s) => s.startsWith("[..."))) return null;
  return `/${segments.map((s) => s.replace(/^\[(\w+)\]$/, "{$1}")).join("/")}`;
}

const fromFiles = routeFiles(API_ROOT)
  .flatMap((file) => {
    const path = openApiPath(file);
    return path === null ? [] : exportedMethods(file).map((method) => `${method} ${path}`);
  })
  .sort();

const document = openApiDocument();
const fromDocument = Object.entries(document.paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
  .sort();

describe("the OpenAPI document", () => {
  it("finds the route files (the walk itself works)", () => {
    expect(fromFiles).toContain("GET /conversations/{id}/stats");
    expect(fromFiles).toContain("PATCH /conversations/{id}");
    expect(fromFiles.some((op) => op.includes("..."))).toBe(false);
  });

  it("describes every route file's methods, and nothing else", () => {
    expect({ missingFromDocument: fromFiles.filter((op) => !fromDocument.includes(op)) }).toEqual({ missingFromDocument: [] });
    expect({ noRouteFile: fromDocument.filter((op) => !fromFiles.includes(op)) }).toEqual({ noRouteFile: [] });
  });

  it("registers each operation once, with its path parameters, errors and a JSON schema for each body", () => {
    expect(new Set(operations.map((op) => `${op.method} ${op.path}`)).size).toBe(operations.length);
    const item = document.paths["/conversations/{id}/messages"] as Record<string, any>;
    expect(item.get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "path:id",
      "query:before",
      "query:take",
    ]);
    expect(Object.keys(item.get.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    const messages = item.get.responses["200"].content["application/json"].schema.properties.messages;
    expect(messages.items.properties.sentAt).toMatchObject({ type: "string", format: "date-time" });
    expect(messages.items.additionalProperties).toBe(false);
    const reply = (document.paths["/messages/{id}/reply"] as Record<string, any>).post;
    expect(reply.requestBody.content["application/json"].schema).toMatchObject({ type: "object", required: ["text"] });
    expect(Object.keys(reply.responses)).toEqual(expect.arrayContaining(["201", "502"]));
  });

  it("is valid JSON with no unrepresentable leftovers", () => {
    const text = JSON.stringify(document);
    expect(JSON.parse(text)).toEqual(document);
    expect(text).not.toContain("$schema");
  });
});
