import { describe, expect, it } from "vitest";
import { systemPrompt, withAgentInstructions } from "@/lib/context/prompt";
import { promptDiff, promptText } from "@/lib/replay/prompt-diff";
import { answerChanged } from "@/lib/replay/view";

const system = (agentInstructions: string) =>
  systemPrompt({ channel: "telegram", type: "private", agentInstructions, inFork: false, inTopic: false, extraSystem: [], gapNote: null });

describe("a frozen replay's instructions", () => {
  it("replace only the system prompt's first paragraph: the result is what systemPrompt writes with them", () => {
    expect(withAgentInstructions(system("Be kind.\n\nAlways."), "Be brief.")).toBe(system("Be brief."));
  });
  it("a prompt of another shape is refused, not guessed", () => {
    expect(withAgentInstructions("something else entirely", "x")).toBeNull();
  });
});

describe("the prompt diff", () => {
  it("marks each line same, removed or added: the original and the replay's prompt read back from it", () => {
    const a = promptText({
      system: "S",
      messages: [
        { role: "user", content: "one" },
        { role: "user", content: "two" },
      ],
    });
    const b = promptText({ system: "S", messages: [{ role: "user", content: "two" }] });
    const diff = promptDiff(a, b);
    // Reading the lines that are not added gives the original, those not removed the replay's.
    expect(
      `${diff
        .filter((l) => l.op !== "added")
        .map((l) => l.text)
        .join("\n")}\n`,
    ).toBe(a);
    expect(
      `${diff
        .filter((l) => l.op !== "removed")
        .map((l) => l.text)
        .join("\n")}\n`,
    ).toBe(b);
    expect(diff.filter((l) => l.op === "removed").map((l) => l.text)).toContain("one");
    expect(diff.filter((l) => l.op === "added")).toEqual([]);
  });
});

describe("answerChanged", () => {
  const output = (text: string | null, handoff: string | null = null) => ({ replied: text !== null, text, handoff, toolCalls: [] });
  it("ignores whitespace, sees silence, another text and a handoff started", () => {
    const original = { replied: true, text: "Hi there", handoff: null };
    expect(answerChanged(original, output(" Hi  there\n"))).toBe(false);
    expect(answerChanged(original, output(null))).toBe(true);
    expect(answerChanged(original, output("Hello"))).toBe(true);
    expect(answerChanged(original, output("Hi there", "needs a person"))).toBe(true);
  });
});
