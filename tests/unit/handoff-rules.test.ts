import { describe, expect, it } from "vitest";
import { agentStaysSilent, COMMAND_REASON, handoffCommandIn, parseHandoffCommand, transitionRefusal } from "@/lib/pipeline/handoff-rules";

describe("handoff rules", () => {
  it("the command is the whole message, optionally addressed to a bot and followed by a reason", () => {
    expect(parseHandoffCommand("/human", "/human")).toEqual({ reason: null, addressee: null });
    expect(parseHandoffCommand("  /HUMAN  ", "/human")).toEqual({ reason: null, addressee: null });
    expect(parseHandoffCommand("/human@SwitchboardBot", "/human")).toEqual({ reason: null, addressee: "SwitchboardBot" });
    expect(parseHandoffCommand("/human my order is lost", "/human")).toEqual({ reason: "my order is lost", addressee: null });
    expect(parseHandoffCommand("/humanoid", "/human")).toBeNull();
    expect(parseHandoffCommand("/humane", "/human")).toBeNull();
    expect(parseHandoffCommand("please /human", "/human")).toBeNull();
    expect(parseHandoffCommand("/human", "/operator")).toBeNull();
    expect(parseHandoffCommand(`/human ${"x".repeat(900)}`, "/human")!.reason).toHaveLength(500);
  });

  it("the command in a message: a person asking this bot, never an edit, a bot, a channel, a forward or another bot's command", () => {
    const person = { kind: "new" as const, text: "/human", forwarded: false, sender: { isBot: false }, addressesBot: false };
    expect(handoffCommandIn(person, "/human")).toBe(COMMAND_REASON);
    expect(handoffCommandIn({ ...person, text: "/HUMAN" }, "/human")).toBe(COMMAND_REASON);
    expect(handoffCommandIn({ ...person, sender: { isBot: false, role: "anonymous_admin" } }, "/human")).toBe(COMMAND_REASON);
    // Addressed: ours only when the platform says the message addresses this bot.
    expect(handoffCommandIn({ ...person, text: "/human@OtherBot" }, "/human")).toBeNull();
    expect(handoffCommandIn({ ...person, text: "/human@switchboard_bot", addressesBot: true }, "/human")).toBe(COMMAND_REASON);
    expect(handoffCommandIn({ ...person, kind: "edit" }, "/human")).toBeNull();
    expect(handoffCommandIn({ ...person, forwarded: true }, "/human")).toBeNull();
    expect(handoffCommandIn({ ...person, sender: { isBot: true } }, "/human")).toBeNull();
    expect(handoffCommandIn({ ...person, sender: { isBot: false, role: "channel" } }, "/human")).toBeNull();
    expect(handoffCommandIn({ ...person, sender: { isBot: false, role: "automatic_forward" } }, "/human")).toBeNull();
    // The recorded reason, prefix included, keeps the tool's and the API's limit.
    const long = handoffCommandIn({ ...person, text: `/human ${"x".repeat(5000)}` }, "/human")!;
    expect(long).toHaveLength(500);
    expect(long.startsWith(`${COMMAND_REASON}: xxx`)).toBe(true);
  });

  it("bot → waiting → assigned → bot; everything else is refused", () => {
    expect(transitionRefusal(null, "request")).toBeNull();
    expect(transitionRefusal("waiting", "take")).toBeNull();
    expect(transitionRefusal("assigned", "release")).toBeNull();
    expect(transitionRefusal("waiting", "release")).toBeNull();
    expect(transitionRefusal(null, "take")).not.toBeNull();
    expect(transitionRefusal(null, "release")).not.toBeNull();
    expect(transitionRefusal("waiting", "request")).not.toBeNull();
    expect(transitionRefusal("assigned", "take")).not.toBeNull();
    expect(transitionRefusal("assigned", "request")).not.toBeNull();
  });

  it("the agent is silent while waiting or assigned, never on an unknown value", () => {
    expect(agentStaysSilent("waiting")).toBe(true);
    expect(agentStaysSilent("assigned")).toBe(true);
    expect(agentStaysSilent(null)).toBe(false);
    expect(agentStaysSilent("garbage")).toBe(false);
  });
});
