import { describe, expect, it } from "vitest";
import { loginPathFor, safeReturnPath } from "@/lib/http/return-path";

describe("where sign-in returns to", () => {
  it("a page of this site, with its query", () => {
    expect(safeReturnPath("/forks?conversationId=3")).toBe("/forks?conversationId=3");
    expect(safeReturnPath("/conversations/12?message=40#x")).toBe("/conversations/12?message=40#x");
    expect(loginPathFor("/envelopes?status=failed")).toBe("/login?next=%2Fenvelopes%3Fstatus%3Dfailed");
    expect(loginPathFor("/")).toBe("/login");
  });

  it("never another site, the sign-in pages or the API (no open redirect)", () => {
    for (const value of [
      "//evil.example/x",
      "https://evil.example/",
      "/\\evil.example",
      "/\\/evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "/\t/evil.example",
      "/\n/evil.example",
      "evil.example",
      "",
      "/login",
      "/login?next=/x",
      "/setup",
      "/api/v1/status",
      `/${"a".repeat(2001)}`,
      null,
      undefined,
    ])
      expect(safeReturnPath(value), String(value)).toBeNull();
    expect(loginPathFor("//evil.example")).toBe("/login");
  });
});
