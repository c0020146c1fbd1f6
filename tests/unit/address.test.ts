import { describe, expect, it } from "vitest";
import { channelAddress, formatAddress, isAddress, parseAddress } from "@/lib/envelope/address";
import { AppError } from "@/lib/errors";

describe("addresses", () => {
  it("parses each kind", () => {
    expect(parseAddress("agent:main")).toEqual({ kind: "agent", name: "main" });
    expect(parseAddress("operator:Alice.B")).toEqual({ kind: "operator", name: "Alice.B" });
    expect(parseAddress("channel:telegram:-100123")).toEqual({ kind: "channel", adapter: "telegram", chatId: "-100123" });
  });
  it("keeps colons inside a chat id", () => {
    expect(parseAddress("channel:line:group:C123")).toEqual({ kind: "channel", adapter: "line", chatId: "group:C123" });
  });
  it("round-trips", () => {
    for (const text of ["agent:a-b_1", "operator:bob", "channel:telegram:42"]) expect(formatAddress(parseAddress(text))).toBe(text);
    expect(channelAddress("telegram", "42")).toBe("channel:telegram:42");
  });
  it.each([
    "",
    "agent",
    "agent:",
    "agent:Main",
    "agent:a:b",
    "channel:telegram",
    "channel::42",
    "channel:Tele:42",
    "channel:telegram:a b",
    "user:bob",
    "operator:",
    "operator:bob smith",
  ])("refuses %j with a clear error", (text) => {
    expect(isAddress(text)).toBe(false);
    expect(() => parseAddress(text)).toThrow(AppError);
    expect(() => parseAddress(text)).toThrow(/invalid address/);
  });
});
