import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { readConversationExport } from "@/lib/db/conversation-export";
import { eventBus, type LiveEvent } from "@/lib/events/bus";
import { conversationText } from "@/lib/inbox/export";
import { sendOperatorMedia } from "@/lib/pipeline/operator-media";
import { sendOperatorMessage } from "@/lib/pipeline/operator-reply";
import { installRouteApp, uninstallRouteApp, useRoutedApp } from "../helpers/route-app";
import { update } from "../fixtures/telegram";
import { callRoute } from "../helpers/route-call";
import { databases, sqliteTestDb } from "../helpers/db";
import { startTestApp } from "../helpers/app";
import { startFakeTelegram } from "../helpers/fake-telegram";
import { startFakeLlm } from "../helpers/fake-llm";

const TOKEN = "test-api-token-edits-0123456789";
const ROUTE = "app/api/v1/messages/[id]/route.ts";
const CANT_EDIT = "Bad Request: message can't be edited";
const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

const patch = (id: number, text: string) => callRoute(TOKEN, ROUTE, "PATCH", `/api/v1/messages/${id}`, { id: String(id) }, { text });
const del = (id: number) => callRoute(TOKEN, ROUTE, "DELETE", `/api/v1/messages/${id}`, { id: String(id) });

/** PATCH and DELETE /api/v1/messages/{id} on a live Telegram bot (the fake Bot API), the history, and Telegram's refusals. */
describe.each(databases)("editing and deleting sent messages on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  /** A chat with a user's message, and an operator's message in it as Telegram holds it. */
  async function sent(text: string) {
    await app.t.post(update({ text: "how much is it?" }));
    await app.t.settle();
    const conversation = await app.t.db.prisma.conversation.findFirstOrThrow();
    const result = await sendOperatorMessage(app.t.app, { conversationId: conversation.id, text, operator: "ana" });
    if (!result.recorded) throw new Error("not recorded");
    const message = await app.t.db.prisma.message.findUniqueOrThrow({ where: { id: result.messageId } });
    return { conversation, message };
  }

  it("an edit goes through editMessageText; the message has the new text, editedAt, and its earlier text with who replaced it", async () => {
    const { conversation, message } = await sent("It costs 1O0 EUR");
    const events: LiveEvent[] = [];
    const unsubscribe = eventBus(app.t.db).subscribe((event) => events.push(event));
    const response = await patch(message.id, "It costs 100 EUR");
    unsubscribe();
    expect(response.status).toBe(200);
    // An open timeline hears of it (the live stream).
    expect(events).toContainEqual({ type: "message", conversationId: conversation.id, messageId: message.id });
    expect(response.body.message).toMatchObject({ id: message.id, text: "It costs 100 EUR", deletedAt: null });
    expect(response.body.message.editedAt).toEqual(expect.any(String));
    expect(response.body.message.revisions).toEqual([{ text: "It costs 1O0 EUR", replacedAt: expect.any(String), editedBy: "api" }]);
    expect(app.telegram.callsOf("editMessageText").map((c) => c.body)).toEqual([
      { chat_id: conversation.platformChatId, message_id: Number(message.platformMessageId), text: "It costs 100 EUR" },
    ]);
    expect(app.telegram.message(conversation.platformChatId, message.platformMessageId!)).toEqual({ text: "It costs 100 EUR" });
    const stored = await app.t.db.prisma.message.findUniqueOrThrow({ where: { id: message.id }, include: { revisions: true } });
    expect(stored.text).toBe("It costs 100 EUR");
    expect(stored.revisions.map((r) => [r.text, r.editedBy])).toEqual([["It costs 1O0 EUR", "api"]]);
    // The same text again: 409 "not modified" without asking Telegram.
    const again = await patch(message.id, "It costs 100 EUR");
    expect(again).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
    expect(again.body.error.message).toMatch(/not modified/);
    expect(app.telegram.callsOf("editMessageText")).toHaveLength(1);
  });

  it("a file's caption is edited with editMessageCaption", async () => {
    await app.t.post(update({ text: "send the photo" }));
    await app.t.settle();
    const conversation = await app.t.db.prisma.conversation.findFirstOrThrow();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
    const result = await sendOperatorMedia(
      { ...app.t.app, maxBytes: 10 * 1024 * 1024, mediaUrlSecret: "x".repeat(32) },
      {
        conversationId: conversation.id,
        operator: "ana",
        file: { bytes: new Uint8Array(png), name: "menu.png", declaredType: "image/png" },
        fields: { caption: "the menu, 5 EUR" },
      },
    );
    if (!result.recorded) throw new Error("not recorded");
    const response = await patch(result.messageId, "the menu, 6 EUR");
    expect(response).toMatchObject({ status: 200, body: { message: { text: "the menu, 6 EUR" } } });
    expect(app.telegram.callsOf("editMessageText")).toHaveLength(0);
    expect(app.telegram.callsOf("editMessageCaption").map((c) => c.body.caption)).toEqual(["the menu, 6 EUR"]);
  });

  it("a deletion goes through deleteMessage; the history keeps it, deleted by the operator; a second one is a 409", async () => {
    const { conversation, message } = await sent("wrong chat, sorry");
    const events: LiveEvent[] = [];
    const unsubscribe = eventBus(app.t.db).subscribe((event) => events.push(event));
    const response = await del(message.id);
    unsubscribe();
    expect(response.status).toBe(200);
    expect(events).toContainEqual({ type: "message", conversationId: conversation.id, messageId: message.id });
    expect(response.body.message).toMatchObject({ id: message.id, text: "wrong chat, sorry", deletedBy: "api" });
    expect(response.body.message.deletedAt).toEqual(expect.any(String));
    expect(app.telegram.callsOf("deleteMessage").map((c) => c.body)).toEqual([
      { chat_id: conversation.platformChatId, message_id: Number(message.platformMessageId) },
    ]);
    expect(app.telegram.message(conversation.platformChatId, message.platformMessageId!)).toBeNull();
    expect(await del(message.id)).toMatchObject({ status: 409 });
    expect(await patch(message.id, "edited after")).toMatchObject({ status: 409 });
    expect(app.telegram.callsOf("deleteMessage")).toHaveLength(1);
    expect(app.telegram.callsOf("editMessageText")).toHaveLength(0);
    // The inbox list previews it as the chat shows it, not by its text.
    const list = await callRoute(TOKEN, "app/api/v1/conversations/route.ts", "GET", "/api/v1/conversations", {});
    expect(list.body.conversations[0].lastMessage).toMatchObject({ text: "Deleted message" });
    // The readable export names who deleted it, not "the sender".
    const text = conversationText((await readConversationExport(app.t.db, conversation.id))!);
    expect(text).toContain("wrong chat, sorry (deleted by api)");
    expect(text).not.toContain("deleted by the sender");
  });

  it("Telegram's refusals are a 409 with its reason, and the history is unchanged", async () => {
    const { conversation, message } = await sent("first text");
    // The message is too old to edit (Telegram's own answer).
    app.telegram.failNext({ method: "editMessageText", status: 400, body: { ok: false, error_code: 400, description: CANT_EDIT } });
    const cant = await patch(message.id, "second text");
    expect(cant.status).toBe(409);
    expect(cant.body.error.message).toContain(CANT_EDIT);
    // Telegram holds another text than the history (edited elsewhere): the new text is what it has.
    const botApi = `${app.telegram.url}/bot123456:TEST-TOKEN`;
    const edit = { chat_id: conversation.platformChatId, message_id: Number(message.platformMessageId), text: "third text" };
    await fetch(`${botApi}/editMessageText`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(edit),
    });
    const same = await patch(message.id, "third text");
    expect(same.status).toBe(409);
    expect(same.body.error.message).toContain(NOT_MODIFIED);
    // Taken back in the chat already: Telegram no longer has it.
    const gone = { chat_id: conversation.platformChatId, message_id: Number(message.platformMessageId) };
    await fetch(`${botApi}/deleteMessage`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(gone) });
    const missing = await del(message.id);
    expect(missing.status).toBe(409);
    expect(missing.body.error.message).toContain("Bad Request: message to delete not found");
    const stored = await app.t.db.prisma.message.findUniqueOrThrow({ where: { id: message.id }, include: { revisions: true } });
    expect(stored).toMatchObject({ text: "first text", editedAt: null, deletedAt: null, deletedBy: null, revisions: [] });
  });

  it("a user's message is never editable nor deletable (409), and Telegram is not asked", async () => {
    await app.t.post(update({ text: "my own words" }));
    await app.t.settle();
    const user = await app.t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "user" } });
    const edit = await patch(user.id, "other words");
    expect(edit.status).toBe(409);
    expect(edit.body.error.message).toMatch(/user's/);
    expect((await del(user.id)).status).toBe(409);
    expect(app.telegram.callsOf("editMessageText")).toHaveLength(0);
    expect(app.telegram.callsOf("deleteMessage")).toHaveLength(0);
  });

  it("a message Telegram took as two (over 4,096 characters) is refused whole: edit and delete are 409, nothing asked", async () => {
    const { message } = await sent(`${"long ".repeat(900)}\n${"text ".repeat(100)}`);
    expect(app.telegram.sends().filter((c) => c.body.text !== undefined && c.body.chat_id)).toHaveLength(2);
    const edit = await patch(message.id, "short now");
    expect(edit.status).toBe(409);
    expect(edit.body.error.message).toMatch(/2 Telegram messages/);
    expect((await del(message.id)).status).toBe(409);
    expect(app.telegram.callsOf("editMessageText")).toHaveLength(0);
    expect(app.telegram.callsOf("deleteMessage")).toHaveLength(0);
  });

  it("bad input is a 4xx and changes nothing; an unknown message is a 404", async () => {
    const { message } = await sent("keep me");
    expect((await patch(message.id, "   ")).status).toBe(400);
    expect((await patch(message.id, "x".repeat(5001))).status).toBe(400);
    // A field the route does not take is refused, as on every other body.
    const extra = await callRoute(
      TOKEN,
      ROUTE,
      "PATCH",
      `/api/v1/messages/${message.id}`,
      { id: String(message.id) },
      { text: "fixed", foo: 1 },
    );
    expect(extra.status).toBe(400);
    expect((await patch(2147483647, "x")).status).toBe(404);
    expect((await del(2147483647)).status).toBe(404);
    expect((await app.t.db.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).text).toBe("keep me");
  });
});

describe("editing and deleting on LINE", () => {
  it("is refused with 409 (LINE cannot change a sent message)", async () => {
    const testDb = await sqliteTestDb();
    const telegram = await startFakeTelegram();
    const t = await startTestApp({
      db: testDb,
      telegram,
      model: null,
      env: { LINE_CHANNEL_SECRET: "s", LINE_CHANNEL_ACCESS_TOKEN: "line-token", LINE_API_ROOT: "http://127.0.0.1:9" },
    });
    installRouteApp(t.app, TOKEN);
    try {
      const conversation = await t.db.prisma.conversation.create({ data: { channel: "line", platformChatId: "U1", type: "private" } });
      const message = await t.db.prisma.message.create({
        data: {
          conversationId: conversation.id,
          direction: "outbound",
          senderKind: "agent",
          text: "hello from the bot",
          platformMessageId: "700001",
          sentAt: new Date(),
        },
      });
      const edit = await patch(message.id, "hello again");
      expect(edit.status).toBe(409);
      expect(edit.body.error.message).toMatch(/LINE cannot edit/);
      const removal = await del(message.id);
      expect(removal.status).toBe(409);
      expect(removal.body.error.message).toMatch(/LINE cannot delete/);
    } finally {
      uninstallRouteApp();
      await t.stop();
      await testDb.close();
      await telegram.close();
    }
  });
});

describe.each(databases)("what the model sees after an edit or deletion on $name", ({ open }) => {
  /** An app on a fresh database with fake Telegram and a fake model answering `reply`, routes installed; torn down after `run`. */
  async function withApp(
    reply: string,
    run: (t: Awaited<ReturnType<typeof startTestApp>>, llm: Awaited<ReturnType<typeof startFakeLlm>>) => Promise<void>,
  ) {
    const testDb = await open();
    const telegram = await startFakeTelegram();
    const llm = await startFakeLlm(() => ({ reply }));
    const t = await startTestApp({ db: testDb, telegram, llm });
    installRouteApp(t.app, TOKEN);
    try {
      await run(t, llm);
    } finally {
      uninstallRouteApp();
      await t.stop();
      await testDb.close();
      await telegram.close();
      await llm.close();
    }
  }

  it("a user's reply to a deleted message quotes nothing of it, in that turn and the next", async () => {
    await withApp("noted", async (t, llm) => {
      await t.post(update({ text: "hello" }));
      await t.settle();
      const conversation = await t.db.prisma.conversation.findFirstOrThrow();
      const aside = await sendOperatorMessage(t.app, { conversationId: conversation.id, text: "discount code ZZTOP-77", operator: "ana" });
      if (!aside.recorded) throw new Error("not recorded");
      const sentCode = await t.db.prisma.message.findUniqueOrThrow({ where: { id: aside.messageId } });
      // Telegram's update carries its own copy of the replied-to message's text.
      const replyTo = { message_id: Number(sentCode.platformMessageId), text: "discount code ZZTOP-77", fromBot: true };
      await t.post(update({ text: "is it the prefix?", replyTo }));
      await t.settle();
      const before = llm.requests.length;
      expect((await del(aside.messageId)).status).toBe(200);
      // One reply stored before the deletion, one arriving after it (the user's app still showed the message).
      await t.post(update({ text: "what was that code?", replyTo }));
      await t.settle();
      await t.post(update({ text: "hello again" }));
      await t.settle();
      expect(llm.requests.length).toBe(before + 2);
      for (const request of llm.requests.slice(before)) expect(JSON.stringify(request.messages)).not.toContain("ZZTOP");
      const earlier = await t.db.prisma.message.findFirstOrThrow({ where: { text: "is it the prefix?" } });
      expect(earlier).toMatchObject({ replyToMessageId: aside.messageId, replyToText: null, quoteText: null });
    });
  });

  it("the next turn's prompt has the edited text, not the earlier one, and not the deleted message at all", async () => {
    await withApp("The price is 1O0 EUR", async (t, llm) => {
      await t.post(update({ text: "price?" }));
      await t.settle();
      const answer = await t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "agent" } });
      const conversation = await t.db.prisma.conversation.findFirstOrThrow();
      const aside = await sendOperatorMessage(t.app, { conversationId: conversation.id, text: "INTERNAL-CODE-4411", operator: "ana" });
      if (!aside.recorded) throw new Error("not recorded");
      expect((await patch(answer.id, "The price is 100 EUR")).status).toBe(200);
      expect((await del(aside.messageId)).status).toBe(200);
      await t.post(update({ text: "thanks" }));
      await t.settle();
      const prompt = JSON.stringify(llm.requests.at(-1)!.messages);
      expect(prompt).toContain("The price is 100 EUR");
      expect(prompt).not.toContain("1O0");
      expect(prompt).not.toContain("INTERNAL-CODE-4411");
    });
  });
});
