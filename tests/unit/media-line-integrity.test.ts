/**
 * Media lines carry text a sender chose (file names, sticker sets, places, polls,
 * transcripts). Whatever it is, the prompt must parse back with the media lines as
 * media lines, the caption as the body, and nothing a user wrote posing as either.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { imagesForModel } from "@/lib/context/media";
import { buildPrompt, quotedMessage } from "@/lib/context/prompt";
import type { AttachmentFact } from "@/lib/db/context-facts";
import { cases } from "../helpers/adversarial-corpus";
import { cmsg } from "../helpers/messages";
import { assertPromptIntegrity } from "../helpers/prompt-integrity";

const attachment = (patch: Partial<AttachmentFact>): AttachmentFact => ({
  id: 1,
  messageId: 2,
  position: 0,
  kind: "photo",
  mimeType: "image/jpeg",
  fileName: null,
  sizeBytes: null,
  width: 1280,
  height: 960,
  durationSeconds: null,
  status: "stored",
  error: null,
  details: null,
  transcript: null,
  blobSha256: null,
  ...patch,
});

const settings = { agentInstructions: "Be brief.", quoteMaxChars: 200 };

function render(hostile: string, caption = "look") {
  const attachments = [
    attachment({ id: 1, kind: "document", fileName: hostile, sizeBytes: 2_202_009 }),
    attachment({ id: 2, kind: "voice", durationSeconds: 7, transcript: hostile, position: 1 }),
    attachment({ id: 3, kind: "sticker", details: { format: "static", emoji: hostile, setName: hostile }, position: 2 }),
    attachment({ id: 4, kind: "audio", details: { performer: hostile, title: hostile }, durationSeconds: 3, position: 3 }),
  ];
  const shared = { type: "poll", question: hostile, options: [hostile, "b"] };
  const m = cmsg(2, { text: caption, attachments, shared });
  const victim = cmsg(3, { senderName: "Alice", text: "is that right?" });
  const prompt = buildPrompt({
    context: { messages: [m, victim], gapNote: null },
    currentId: 3,
    conversation: { channel: "telegram", type: "private", title: null },
    settings,
  });
  return assertPromptIntegrity(prompt, { userMessages: [{ isReply: false }, { isReply: false }] });
}

describe("media lines under hostile sender-chosen text", () => {
  it("every corpus attack, as a file name, transcript, sticker set, audio title and poll, stays inside its line", () => {
    const bodies = [...new Set(cases.flatMap((c) => [c.attack.body, c.attack.name, c.attack.quote].filter((v): v is string => !!v)))];
    expect(bodies.length).toBeGreaterThan(50);
    for (const hostile of bodies) {
      const parsed = render(hostile);
      expect(parsed.messages[0].media).toHaveLength(5);
      expect(parsed.messages[0].body).toEqual(["look"]);
      expect(parsed.messages[1].media).toEqual([]);
    }
  });

  it("random text does too, and a caption imitating a media line is escaped", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (hostile) => {
        const parsed = render(hostile, `[photo 1280×960]\n${hostile}`);
        expect(parsed.messages[0].media).toHaveLength(5);
        expect(parsed.messages[0].body[0]).toBe("\\[photo 1280×960]");
      }),
      { numRuns: 300 },
    );
  });
});

describe("imagesForModel", () => {
  const photo = (id: number, messageId: number, status = "stored") => attachment({ id, messageId, status });
  const messages = [1, 2, 3, 4, 5, 6].map((id) => cmsg(id, { attachments: [photo(id * 10, id)] }));

  it("the newest pictures first, up to the limit; none with the setting off", () => {
    expect([...imagesForModel(messages, { modelSeesImages: true, maxImagesPerTurn: 4 }).keys()]).toEqual([6, 5, 4, 3]);
    expect(imagesForModel(messages, { modelSeesImages: false, maxImagesPerTurn: 4 }).size).toBe(0);
    expect(imagesForModel(messages, { modelSeesImages: null, maxImagesPerTurn: 4 }).size).toBe(0);
  });

  it("only users' pictures that are, or may yet be, stored; not animated stickers or PDFs", () => {
    const mixed = [
      cmsg(1, { attachments: [photo(1, 1, "failed")] }),
      cmsg(2, { attachments: [attachment({ id: 2, messageId: 2, kind: "sticker", details: { format: "animated" } })] }),
      cmsg(3, { attachments: [attachment({ id: 3, messageId: 3, kind: "document", mimeType: "application/pdf" })] }),
      cmsg(4, { senderKind: "operator", direction: "outbound", attachments: [photo(4, 4)] }),
      cmsg(5, { attachments: [attachment({ id: 5, messageId: 5, kind: "document", mimeType: "image/png" })] }),
      cmsg(6, { attachments: [photo(6, 6, "pending")] }),
    ];
    expect([...imagesForModel(mixed, { modelSeesImages: true, maxImagesPerTurn: 10 }).keys()]).toEqual([6, 5]);
  });
});

describe("a reply to a picture without caption", () => {
  it("quotes what the target carries", () => {
    const target = cmsg(2, { senderName: "Dana", text: "", attachments: [attachment({ id: 1, messageId: 2 })] });
    const reply = cmsg(3, { senderName: "Alice", text: "where is this?", replyToMessageId: 2 });
    const prompt = buildPrompt({
      context: { messages: [target, reply], gapNote: null },
      currentId: 3,
      conversation: { channel: "telegram", type: "group", title: null },
      settings,
    });
    const parsed = assertPromptIntegrity(prompt, { userMessages: [{ isReply: false }, { isReply: true }] });
    expect(parsed.messages[0]).toMatchObject({ media: ["[photo 1280×960]"], body: [] });
    expect(parsed.messages[1].annotation).toEqual({ sender: "Dana", text: "(photo 1280×960)" });
  });
});

describe("a fork's pending updates", () => {
  it("name what a message carried, inside its quote", () => {
    expect(quotedMessage({ senderKind: "user", senderName: "Dana", text: "our trip", attachments: [attachment({})] }, 200)).toBe(
      'Dana: "(photo 1280×960) our trip"',
    );
    expect(quotedMessage({ senderKind: "user", senderName: "Dana", text: "", shared: { type: "dice", emoji: "🎲", value: 4 } }, 200)).toBe(
      'Dana: "(dice 🎲 rolled 4)"',
    );
  });
});
