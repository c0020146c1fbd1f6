import { describe, expect, it } from "vitest";
import { messagePreview } from "@/lib/db/message-preview";

describe("messagePreview", () => {
  it("keeps a message's text, caption or not", () => {
    expect(messagePreview("see attached", { kind: "document", fileName: "invoice.pdf" })).toBe("see attached");
    expect(messagePreview("hello", null)).toBe("hello");
  });

  it("names a file-only message by its file name, else by its kind", () => {
    expect(messagePreview("", { kind: "document", fileName: "invoice.pdf" })).toBe("📎 invoice.pdf");
    expect(messagePreview("", { kind: "photo", fileName: null })).toBe("Photo");
    expect(messagePreview("", { kind: "voice", fileName: null })).toBe("Voice message");
    expect(messagePreview("", { kind: "video_note", fileName: null })).toBe("Video message");
    expect(messagePreview("", { kind: "sticker", fileName: null, emoji: "😀" })).toBe("Sticker 😀");
  });

  it("leaves a message with neither text nor file empty", () => {
    expect(messagePreview("", null)).toBe("");
  });
});
