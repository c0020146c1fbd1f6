import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isPageWrite } from "@/lib/http/page-writes.mjs";

describe("writes to the console's pages", () => {
  it("are refused: a POST (a Server Action's shape), PUT, PATCH, DELETE or OPTIONS to a page", () => {
    expect(isPageWrite("POST", "/login")).toBe(true);
    expect(isPageWrite("POST", "/")).toBe(true);
    expect(isPageWrite("put", "/conversations/1?x=1")).toBe(true);
    expect(isPageWrite("DELETE", "/settings")).toBe(true);
    expect(isPageWrite("POST", "/apix")).toBe(true);
    expect(isPageWrite("POST", "/metrics")).toBe(true);
    // "/api" itself is a page (Next's not-found), and pages need no preflight.
    expect(isPageWrite("POST", "/api")).toBe(true);
    expect(isPageWrite("PUT", "/api?x=1")).toBe(true);
    expect(isPageWrite("OPTIONS", "/login")).toBe(true);
    expect(isPageWrite("OPTIONS", "/api")).toBe(true);
  });

  it("are the only ones: reads anywhere and writes to the API (webhooks included) pass", () => {
    expect(isPageWrite("GET", "/login")).toBe(false);
    expect(isPageWrite("HEAD", "/")).toBe(false);
    expect(isPageWrite("OPTIONS", "/api/v1/bots")).toBe(false);
    expect(isPageWrite("POST", "/api/auth/login")).toBe(false);
    expect(isPageWrite("POST", "/api/webhooks/telegram?x=1")).toBe(false);
    expect(isPageWrite("DELETE", "/api/v1/conversations/3")).toBe(false);
    expect(isPageWrite(undefined, undefined)).toBe(false);
    // The absolute form a proxy may send names the same paths.
    expect(isPageWrite("POST", "http://console.example/api/webhooks/line")).toBe(false);
    expect(isPageWrite("POST", "https://console.example/login")).toBe(true);
    expect(isPageWrite("POST", "http://console.example")).toBe(true);
    // A path that only looks like the API's is the page it resolves to.
    expect(isPageWrite("POST", "/api/../login")).toBe(true);
    expect(isPageWrite("POST", "/api/%2e%2e/login")).toBe(true);
    expect(isPageWrite("POST", "/api\\..\\settings")).toBe(true);
    expect(isPageWrite("POST", "/api/v1/../auth/login")).toBe(false);
  });

  it("is what the server in front of Next checks before handing a request on", () => {
    const start = readFileSync(new URL("../../scripts/start.mjs", import.meta.url), "utf8");
    expect(start).toMatch(/if \(isPageWrite\(req\.method, req\.url\)\) \{\s*res\.writeHead\(405/);
    expect(start.indexOf("isPageWrite(req.method")).toBeLessThan(start.indexOf("handle(req, res)"));
  });
});
