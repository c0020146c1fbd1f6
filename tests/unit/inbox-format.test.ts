import { describe, expect, it } from "vitest";
import { csvCell } from "@/lib/inbox/export";
import { expandSavedReply, unknownPlaceholders } from "@/lib/inbox/saved-reply-template";

describe("saved reply placeholders", () => {
  it("fills the first name and the name", () => {
    expect(expandSavedReply("Hi {{first_name}}! ({{ name }})", { name: "Ada Lovelace" })).toBe("Hi Ada! (Ada Lovelace)");
  });
  it("an unknown name leaves no gap before punctuation", () => {
    expect(expandSavedReply("Hi {{first_name}}, thanks.", { name: null })).toBe("Hi, thanks.");
    expect(expandSavedReply("Thanks {{first_name}}", { name: "  " })).toBe("Thanks");
  });
  it("refuses placeholders it does not know, so a typo never reaches a user", () => {
    expect(unknownPlaceholders("Hi {{firstname}} {{first_name}} {{ }}")).toEqual(["firstname", ""]);
    expect(unknownPlaceholders("Hi {{first_name}}, {single}")).toEqual([]);
  });
  it("a name holding braces is inserted as text, not expanded again", () => {
    expect(expandSavedReply("Hi {{name}}", { name: "{{first_name}}" })).toBe("Hi {{first_name}}");
  });
});

describe("CSV cells", () => {
  it("quote what a spreadsheet would run as a formula", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"])
      expect(csvCell(text).replace(/^"|"$/g, "").startsWith("'")).toBe(true);
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell(-5)).toBe("-5");
  });
  it("quote separators, quotes and line breaks (RFC 4180)", () => {
    expect(csvCell('a "b", c')).toBe('"a ""b"", c"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(new Date("2026-01-02T03:04:05Z"))).toBe("2026-01-02T03:04:05.000Z");
  });
});
