import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

describe("the process's one global", () => {
  it("gives every copy of the module the same value (Next loads lib/ once per bundle)", async () => {
    const first = await import("@/lib/process-global");
    vi.resetModules();
    const second = await import("@/lib/process-global");
    expect(second).not.toBe(first);
    const made = first.processSingleton("test-slot", () => ({ n: 1 }));
    expect(second.processSingleton("test-slot", () => ({ n: 2 }))).toBe(made);
  });

  it("is the only place in lib/ that keeps anything on globalThis", () => {
    const holders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "generated") walk(path);
        } else if (/\.(m?ts|mjs)$/.test(entry.name) && path !== join("lib", "process-global.ts")) {
          // Reading a platform global (globalThis.fetch) keeps nothing; `globalThis as …` is a holder.
          if (/globalThis\s+as\b/.test(readFileSync(path, "utf8"))) holders.push(path);
        }
      }
    };
    walk("lib");
    expect(holders).toEqual([]);
  });
});
