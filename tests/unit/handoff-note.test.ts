import { describe, expect, it } from "vitest";
import { handoffNoteFor, showHandoffNote } from "@/lib/context/handoff-note";

describe("the hand-back note", () => {
  it("the hand-back note shows while the hand-back is in view or the bot has not spoken since", () => {
    const at = (m: number) => new Date(Date.UTC(2026, 10, 20, 10, m));
    const back = at(30);
    expect(
      showHandoffNote(back, [
        { sentAt: at(10), senderKind: "user" },
        { sentAt: at(31), senderKind: "user" },
      ]),
    ).toBe(true);
    expect(showHandoffNote(back, [{ sentAt: at(31), senderKind: "user" }])).toBe(true);
    expect(
      showHandoffNote(back, [
        { sentAt: at(31), senderKind: "user" },
        { sentAt: at(32), senderKind: "agent" },
      ]),
    ).toBe(false);
    expect(showHandoffNote(null, [{ sentAt: at(31), senderKind: "user" }])).toBe(false);
    expect(
      handoffNoteFor({ lastHandoffFrom: at(5), lastHandoffUntil: back, lastHandoffOperator: "alice" }, [
        { sentAt: at(31), senderKind: "user" },
      ]),
    ).toEqual({ from: at(5), until: back, operator: "alice" });
  });
});
