import { describe, expect, it } from "vitest";
import { shouldAnswer } from "@/lib/pipeline/should-answer";

const base = { chatType: "group" as const, senderIsBot: false, addressesBot: false, repliesToBot: false };

describe("shouldAnswer", () => {
  it("always answers in private chats", () => {
    expect(shouldAnswer({ ...base, chatType: "private" }, "addressed")).toBe(true);
    expect(shouldAnswer({ ...base, chatType: "private" }, "never")).toBe(true);
  });
  it("in groups answers only when addressed or replied to", () => {
    expect(shouldAnswer(base, "addressed")).toBe(false);
    expect(shouldAnswer({ ...base, addressesBot: true }, "addressed")).toBe(true);
    expect(shouldAnswer({ ...base, repliesToBot: true }, "addressed")).toBe(true);
  });
  it("follows the operator's group mode", () => {
    expect(shouldAnswer(base, "all")).toBe(true);
    expect(shouldAnswer({ ...base, addressesBot: true }, "never")).toBe(false);
  });
  it("never answers other bots", () => {
    expect(shouldAnswer({ ...base, chatType: "private", senderIsBot: true }, "all")).toBe(false);
  });
});
