import { describe, expect, it } from "vitest";
import { inboundOutcome, shouldAnswer } from "@/lib/pipeline/should-answer";

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

describe("the outcome of a stored inbound message", () => {
  const base = { agentEnabled: true, addressed: true, modelConfigured: true, forkConflict: false };
  it("is answered when the agent is on, addressed, and a model is configured", () => {
    expect(inboundOutcome(base)).toEqual({ answer: true });
  });
  it("says why it is not answered, the pause first", () => {
    expect(inboundOutcome({ ...base, agentEnabled: false, addressed: false })).toEqual({
      answer: false,
      skipped: "agent paused in this conversation",
    });
    expect(inboundOutcome({ ...base, addressed: false, modelConfigured: false })).toEqual({
      answer: false,
      skipped: "not addressed to the bot",
    });
    expect(inboundOutcome({ ...base, modelConfigured: false })).toEqual({ answer: false, skipped: "no model configured" });
  });
  it("answers a fork conflict with a notice even without a model", () => {
    expect(inboundOutcome({ ...base, modelConfigured: false, forkConflict: true })).toEqual({ answer: true });
  });
});
