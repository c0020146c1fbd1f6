import { describe, expect, it } from "vitest";
import { splitText } from "@/lib/channels/split-text";
import { parseMessageUpdate, parseUpdate } from "@/lib/channels/telegram/parse";
import { updateSchema } from "@/lib/channels/telegram/schema";
import { BOT, alice, group, mention, update } from "../fixtures/telegram";

const parse = (u: unknown) => parseMessageUpdate(updateSchema.parse(u), BOT);

describe("parseUpdate", () => {
  it("parses a private text message", () => {
    const m = parse(update({ updateId: 1, messageId: 10, text: "hello", date: 1_763_800_000 }))!;
    expect(m).toMatchObject({
      channel: "telegram",
      updateId: "1",
      kind: "new",
      chat: { id: String(alice.id), type: "private" },
      message: { id: "10", text: "hello", sentAt: new Date(1_763_800_000_000) },
      sender: { id: String(alice.id), name: "Alice", username: "alice", isBot: false },
      addressesBot: false,
    });
    expect(m.replyTo).toBeUndefined();
  });

  it("recognizes @mentions of this bot only, case-insensitively", () => {
    expect(parse(update({ chat: group, ...mention("hey @Switchboard_Bot look", "Switchboard_Bot") }))!.addressesBot).toBe(true);
    expect(parse(update({ chat: group, ...mention("hey @other_bot", "other_bot") }))!.addressesBot).toBe(false);
  });

  it("recognizes a text_mention of the bot and commands addressed to it", () => {
    const textMention = update({
      chat: group,
      text: "Bot, help",
      entities: [{ type: "text_mention", offset: 0, length: 3, user: { id: BOT.id, is_bot: true, first_name: "Bot" } }],
    });
    expect(parse(textMention)!.addressesBot).toBe(true);
    const cmd = (text: string) =>
      update({ chat: group, text, entities: [{ type: "bot_command", offset: 0, length: text.split(" ")[0].length }] });
    expect(parse(cmd("/help"))!.addressesBot).toBe(true);
    expect(parse(cmd(`/help@${BOT.username} now`))!.addressesBot).toBe(true);
    expect(parse(cmd("/help@other_bot"))!.addressesBot).toBe(false);
  });

  it("takes the replied-to message's id, text and sender, and whether it was the bot", () => {
    const m = parse(update({ text: "yes", replyTo: { message_id: 9, text: "Shall we?", fromBot: true } }))!;
    expect(m.replyTo).toEqual({ id: "9", text: "Shall we?", senderName: "Bot", senderIsBot: true, fromSelf: true });
  });

  it("keeps the quote fragment", () => {
    const m = parse(update({ text: "this", replyTo: { message_id: 9, text: "a long text with this in it" }, quote: "this in it" }))!;
    expect(m.quote).toBe("this in it");
    expect(m.replyTo?.fromSelf).toBe(false);
  });

  it("keeps only the caption as text: media are attachments, never a marker in the text", () => {
    expect(parse(update({ extra: { photo: [{ file_id: "x", file_unique_id: "y", width: 1, height: 1 }] } }))!.message.text).toBe("");
    const captioned = parse(update({ extra: { photo: [{ file_id: "x", file_unique_id: "y", width: 1, height: 1 }], caption: "sunset" } }))!;
    expect(captioned.message.text).toBe("sunset");
    expect(captioned.message.attachments).toEqual([
      { kind: "photo", source: "telegram", sourceRef: "x", platformFileUniqueId: "y", width: 1, height: 1, mimeType: "image/jpeg" },
    ]);
    expect(parse(update({ extra: { voice: { file_id: "v", file_unique_id: "w", duration: 2 } } }))!.message.attachments?.[0]).toMatchObject(
      {
        kind: "voice",
        durationSeconds: 2,
      },
    );
  });

  it("takes message_thread_id only for topic messages", () => {
    expect(parse(update({ chat: group, text: "x", extra: { message_thread_id: 5, is_topic_message: true } }))!.message.topicId).toBe("5");
    expect(parse(update({ chat: group, text: "x", extra: { message_thread_id: 5 } }))!.message.topicId).toBeUndefined();
  });

  it("marks edits and ignores updates without a message", () => {
    expect(parse(update({ text: "fixed", edited: true }))!.kind).toBe("edit");
    expect(parse({ update_id: 5, callback_query: { id: "1" } })).toBeNull();
    expect(parseUpdate(updateSchema.parse({ update_id: 5, callback_query: { id: "1" } }), BOT)).toEqual({
      type: "ignored",
      reason: "the bot sends no inline keyboards",
    });
  });

  it("parses an external reply from another chat with only the platform's copy", () => {
    const m = parse(
      update({
        text: "re",
        quote: "quoted",
        extra: { external_reply: { origin: { type: "user", sender_user: { id: 3, is_bot: false, first_name: "Zed" }, date: 1 } } },
      }),
    )!;
    expect(m.replyTo).toEqual({ text: "quoted", senderName: "Zed", fromSelf: false, chatTitle: undefined });
  });
});

describe("an update whose only field is named like JavaScript's own", () => {
  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])("%s is acknowledged as unknown, never a crash", (field) => {
    const raw = JSON.parse(`{"update_id":7,"${field}":1}`);
    const event = parseUpdate(updateSchema.parse(raw), BOT);
    expect(event).toMatchObject({ type: "ignored", reason: expect.stringMatching(/^unknown update field/) });
  });
});

describe("AppError across copies of its module", () => {
  it("a copy's error (same brand, another class) is still an AppError", async () => {
    const { AppError } = await import("@/lib/errors");
    const foreign = Object.assign(new Error("at most 10 live-event streams"), {
      [Symbol.for("switchboard.AppError")]: true,
      code: "rate_limited",
    });
    expect(foreign instanceof AppError).toBe(true);
    expect(new Error("x") instanceof AppError).toBe(false);
  });
});

describe("splitText", () => {
  it("keeps short text whole and splits long text under the limit", () => {
    expect(splitText("short", 4096)).toEqual(["short"]);
    const parts = splitText(`${"word ".repeat(2000)}\n`.repeat(2), 4096);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
  });

  it("never cuts inside a surrogate pair: an emoji on the limit goes whole to the next part", () => {
    // 4,999 letters, then 🍎 (two UTF-16 code units) straddling 5,000: a cut there would split it.
    const parts = splitText(`${"a".repeat(4999)}🍎${"b".repeat(10)}`, 5000);
    expect(parts).toEqual(["a".repeat(4999), `🍎${"b".repeat(10)}`]);
    expect(parts.join("")).toBe(`${"a".repeat(4999)}🍎${"b".repeat(10)}`);
  });
});

describe("parseUpdate on untrusted shapes", () => {
  it("does not throw on a text_mention without its user (found by the fuzz test)", () => {
    const u = update({ text: "hello there", entities: [{ type: "text_mention", offset: 0, length: 5 }] });
    expect(parse(u)!.addressesBot).toBe(false);
  });
});
