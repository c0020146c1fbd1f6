import { AppError } from "../errors";

/** How deep a request's JSON may nest: envelope metadata is the deepest legitimate input, a few levels. */
export const MAX_JSON_DEPTH = 32;

const NUL_MESSAGE = "text may not contain the NUL character (U+0000)";

/**
 * Refuses what no operator input needs and a database cannot take: U+0000 in any
 * string or key (PostgreSQL refuses it in text and jsonb, a 500 deep in a write),
 * the key `__proto__`, and JSON nested deeper than MAX_JSON_DEPTH (every reader after this one would
 * recurse through it). Walks without recursion, so no input can exhaust the stack.
 */
export function checkJsonInput(value: unknown): void {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: "body" }];
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop()!;
    if (typeof current === "string") {
      if (current.includes("\u0000")) throw new AppError("bad_request", `${path}: ${NUL_MESSAGE}`);
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) throw new AppError("bad_request", `${path}: nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const [key, child] of Object.entries(current)) {
      if (key.includes("\u0000")) throw new AppError("bad_request", `${path}: a key: ${NUL_MESSAGE}`);
      // Copied or spread into another object, this key would set its prototype instead.
      if (key === "__proto__") throw new AppError("bad_request", `${path}: the key "__proto__" is reserved`);
      stack.push({ value: child, depth: depth + 1, path: Array.isArray(current) ? `${path}[${key}]` : `${path}.${key}` });
    }
  }
}

/** The same for a URL's query parameters (filters, search terms). */
export function checkQueryInput(url: string): void {
  for (const [name, value] of new URL(url).searchParams) {
    if (name.includes("\u0000") || value.includes("\u0000"))
      throw new AppError("bad_request", `query parameter ${JSON.stringify(name.replaceAll("\u0000", ""))}: ${NUL_MESSAGE}`);
  }
}
