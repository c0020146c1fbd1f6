import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/auth/operators";
import { contextNeeds } from "@/lib/context/assemble";
import { loadContextFacts } from "@/lib/context/load-facts";
import { findStoredMessage } from "@/lib/db/context-input";
import { sendEnvelope } from "@/lib/pipeline/envelopes";
import { updateSettings } from "@/lib/settings/store";
import { defaultSettings } from "@/lib/settings/schema";
import { BOT } from "../fixtures/telegram";
import { dana, eli, forum, opsRoom, privateChat, releaseChannel } from "../fixtures/platform-updates";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { scriptedModel } from "../helpers/mock-model";

const api: Caller = { operator: { id: 0, name: "api" }, role: "admin", via: "token" };
const mention = `@${BOT.username}`;
const mentionEntity = [{ offset: 0, length: mention.length, type: "mention" }];
let updateId = 70_000;
let clock = 1_763_900_000;
const msg = (id: number, chat: object, rest: object, from: object | null = dana) => ({
  message_id: id,
  ...(from ? { from } : {}),
  chat,
  date: ++clock,
  ...rest,
});
const creation = (id: number, name: string) =>
  msg(id, forum, { message_thread_id: id, is_topic_message: true, forum_topic_created: { name, icon_color: 7_322_096 } });

/** What the Bot API fake was asked to send, by chat and topic. */
const sent = (telegram: FakeTelegram) =>
  telegram.sends().map((c) => ({
    chat: c.body.chat_id,
    thread: c.body.message_thread_id,
    reply: c.body.reply_parameters?.message_id,
    text: c.body.text,
  }));

describe.each(databases)("platform behaviour on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;
  let model: ReturnType<typeof scriptedModel>;
  const post = (body: object) => t.post({ update_id: ++updateId, ...body });

  beforeAll(async () => {
    telegram = await startFakeTelegram();
  });
  afterAll(() => telegram.close());
  beforeEach(async () => {
    telegram.calls.length = 0;
    testDb = await open();
    model = scriptedModel(Array.from({ length: 10 }, (_, i) => ({ replies: [`answer ${i + 1}`] })));
    t = await startTestApp({ db: testDb, telegram, model: model.handle });
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  it("answers a topic message in its topic, and the topic's context holds only the topic", async () => {
    await post({ message: msg(700, forum, { text: "general chatter about lunch" }, eli) });
    await post({ message: creation(710, "Billing") });
    await post({
      message: msg(711, forum, {
        text: "invoice 42 is wrong",
        message_thread_id: 710,
        is_topic_message: true,
        reply_to_message: creation(710, "Billing"),
      }),
    });
    await post({
      message: msg(712, forum, {
        text: `${mention} can you check?`,
        entities: mentionEntity,
        message_thread_id: 710,
        is_topic_message: true,
        reply_to_message: creation(710, "Billing"),
      }),
    });
    await t.settle();
    expect(sent(telegram)).toEqual([{ chat: String(forum.id), thread: 710, reply: 712, text: "answer 1" }]);
    // "typing…" shows in the topic, not in the chat's General topic.
    expect(telegram.callsOf("sendChatAction").map((c) => c.body)).toContainEqual({
      chat_id: String(forum.id),
      action: "typing",
      message_thread_id: 710,
    });
    const prompt = JSON.stringify(model.calls[0]);
    expect(prompt).toContain("invoice 42 is wrong");
    expect(prompt).not.toContain("general chatter about lunch");
    // The model knows it is in a topic, and which one.
    // (the system prompt says "a forum topic"; its names are chat-details data, never system text)
    expect((model.calls[0] as { role: string; content: unknown }[]).find((m) => m.role === "system")?.content).toContain(
      "one forum topic of a telegram supergroup",
    );
    expect(prompt).toContain('title: \\"Support Forum\\"\\nforum topic: \\"Billing\\"');
    // and how to read the header's marks.
    expect(prompt).toContain("(edited)");
    // Not a reply to the (empty) topic-creation message.
    expect(prompt).not.toMatch(/\[↩ reply to Dana Kim/);
    const answer = await t.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" }, include: { conversation: true } });
    expect(answer.conversation.platformChatId).toBe(`${forum.id}:topic:710`);
  });

  it("a message in a topic the bot created is not a reply to the bot (not answered in a group)", async () => {
    const botCreation = msg(
      720,
      forum,
      { message_thread_id: 720, is_topic_message: true, forum_topic_created: { name: "News", icon_color: 1 } },
      { id: BOT.id, is_bot: true, first_name: "Bot", username: BOT.username },
    );
    await post({ message: botCreation });
    const response = await post({
      message: msg(721, forum, { text: "cool", message_thread_id: 720, is_topic_message: true, reply_to_message: botCreation }, eli),
    });
    await t.settle();
    expect(response.body.result).toMatchObject({ status: "stored", answer: false });
    expect(sent(telegram)).toEqual([]);
  });

  it("an envelope replying to another chat's envelope is threaded but not quoted there", async () => {
    await post({ message: msg(801, privateChat, { text: "hello" }) });
    await post({ message: msg(802, opsRoom, { text: "group talk" }, eli) });
    await t.settle();
    telegram.calls.length = 0;
    const groupInbound = await t.db.prisma.envelope.findFirstOrThrow({ where: { from: `channel:telegram:${opsRoom.id}` } });
    const privateInbound = await t.db.prisma.envelope.findFirstOrThrow({ where: { from: `channel:telegram:${privateChat.id}` } });

    const cross = await sendEnvelope(
      t.db,
      { from: "agent:main", to: `channel:telegram:${privateChat.id}`, text: "from the group", replyTo: groupInbound.id },
      api,
    );
    const same = await sendEnvelope(
      t.db,
      { from: "agent:main", to: `channel:telegram:${privateChat.id}`, text: "same chat", replyTo: privateInbound.id },
      api,
    );
    t.app.worker.kick();
    await t.settle();
    expect(sent(telegram)).toEqual([
      { chat: String(privateChat.id), thread: undefined, reply: undefined, text: "from the group" },
      { chat: String(privateChat.id), thread: undefined, reply: 801, text: "same chat" },
    ]);
    const crossDone = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: cross.id }, include: { message: true } });
    expect(crossDone.status).toBe("done");
    expect(crossDone.replyToEnvelopeId).toBe(groupInbound.id);
    // The sent message is not in the group's reply tree.
    expect(crossDone.message).toMatchObject({ replyToMessageId: null, threadId: null });
    expect(
      (await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: same.id }, include: { message: true } })).message?.replyToMessageId,
    ).not.toBeNull();
  });

  it("a blocked bot stops sending, says why, and starts again once unblocked", async () => {
    await post({ message: msg(901, privateChat, { text: "hi" }) });
    await t.settle();
    const botUser = { id: BOT.id, is_bot: true, first_name: "Bot", username: BOT.username };
    await post({
      my_chat_member: {
        chat: privateChat,
        from: dana,
        date: ++clock,
        old_chat_member: { status: "member", user: botUser },
        new_chat_member: { status: "kicked", user: botUser, until_date: 0 },
      },
    });
    telegram.calls.length = 0;
    const refused = await sendEnvelope(t.db, { from: "agent:main", to: `channel:telegram:${privateChat.id}`, text: "ping" }, api);
    t.app.worker.kick();
    await t.settle();
    expect(sent(telegram)).toEqual([]);
    const failed = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: refused.id } });
    expect(failed.status).toBe("failed");
    expect(failed.lastDeliveryError).toMatch(/blocked the bot/);
    expect(failed.attempts).toBeLessThanOrEqual(1);

    // Unblocking is a new message from them: sends work again.
    await post({ message: msg(902, privateChat, { text: "I'm back" }) });
    await t.settle();
    expect(sent(telegram)).toHaveLength(1);
    expect((await t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: String(privateChat.id) } })).membership).toBeNull();
  });

  it("a 403 'blocked by the user' marks the chat, so the next send does not hit Telegram", async () => {
    await post({ message: msg(951, privateChat, { text: "hi" }) });
    await t.settle();
    telegram.calls.length = 0;
    telegram.failNext({ status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } });
    const first = await sendEnvelope(t.db, { from: "agent:main", to: `channel:telegram:${privateChat.id}`, text: "one" }, api);
    t.app.worker.kick();
    await t.settle();
    const second = await sendEnvelope(t.db, { from: "agent:main", to: `channel:telegram:${privateChat.id}`, text: "two" }, api);
    t.app.worker.kick();
    await t.settle();
    expect(sent(telegram)).toHaveLength(1);
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: first.id } })).lastDeliveryError).toBe(
      "Telegram 403: Forbidden: bot was blocked by the user",
    );
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: second.id } })).lastDeliveryError).toMatch(
      /^not sent: the user blocked the bot/,
    );
    expect((await t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: String(privateChat.id) } })).membership).toBe(
      "blocked",
    );
  });

  it("an edit keeps the original, and the context loader exposes editedAt", async () => {
    const stored = await post({ message: msg(1001, privateChat, { text: "meet at 5" }) });
    await t.settle();
    await post({ edited_message: { ...msg(1001, privateChat, { text: "meet at 6" }), edit_date: clock + 60 } });
    const message = await findStoredMessage(t.db, stored.body.result.messageId);
    expect(message).toMatchObject({ text: "meet at 6" });
    expect(message!.editedAt).toBeInstanceOf(Date);
    const conversation = (await t.db.prisma.conversation.findUniqueOrThrow({ where: { id: message!.conversationId } }))!;
    const context = await loadContextFacts(t.db, { conversation, current: message!, needs: contextNeeds(defaultSettings) });
    expect(context.session.find((m) => m.id === message!.id)?.editedAt).toBeInstanceOf(Date);
    const revisions = await t.db.prisma.messageRevision.findMany({ where: { messageId: message!.id } });
    expect(revisions.map((r) => r.text)).toEqual(["meet at 5"]);
  });

  it("an edit that arrives before its message is stored as the message, and the late original does not overwrite it", async () => {
    // Telegram delivers webhooks concurrently: the edit can overtake the original.
    const sentAt = ++clock;
    const edit = await post({ edited_message: { ...msg(1010, privateChat, { text: "meet at 6" }), date: sentAt, edit_date: sentAt + 30 } });
    expect(edit.body.result).toMatchObject({ status: "stored", answer: true });
    const late = await post({ message: { ...msg(1010, privateChat, { text: "meet at 5" }), date: sentAt } });
    expect(late.body.result).toEqual({ status: "duplicate" });
    const stored = await t.db.prisma.message.findMany({ where: { platformMessageId: "1010" } });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ text: "meet at 6", editedAt: new Date((sentAt + 30) * 1000) });
    await t.settle();
  });

  it("an edit racing its original keeps the edited text, whichever commits first", async () => {
    for (let id = 1040; id < 1050; id++) {
      const sentAt = ++clock;
      const results = await Promise.all([
        post({ edited_message: { ...msg(id, privateChat, { text: `edited ${id}` }), date: sentAt, edit_date: sentAt + 30 } }),
        post({ message: { ...msg(id, privateChat, { text: `original ${id}` }), date: sentAt } }),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const stored = await t.db.prisma.message.findMany({ where: { platformMessageId: String(id) } });
      expect(stored.map((m) => m.text)).toEqual([`edited ${id}`]);
    }
    await t.settle();
  });

  it("a message edited to mention the bot, which it never saw (privacy mode), is answered", async () => {
    const edit = await post({
      edited_message: { ...msg(1020, opsRoom, { text: `${mention} now?`, entities: mentionEntity }), edit_date: clock + 5 },
    });
    expect(edit.body.result).toMatchObject({ status: "stored", answer: true });
    await t.settle();
  });

  it("edits delivered out of order: the latest edit_date wins, the older text is kept as a revision", async () => {
    const sentAt = ++clock;
    await post({ message: { ...msg(1030, privateChat, { text: "v1" }), date: sentAt } });
    await post({ edited_message: { ...msg(1030, privateChat, { text: "v3" }), date: sentAt, edit_date: sentAt + 20 } });
    const stale = await post({ edited_message: { ...msg(1030, privateChat, { text: "v2" }), date: sentAt, edit_date: sentAt + 10 } });
    expect(stale.status).toBe(200);
    const message = await t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: "1030" } });
    expect(message).toMatchObject({ text: "v3", editedAt: new Date((sentAt + 20) * 1000) });
    const revisions = await t.db.prisma.messageRevision.findMany({ where: { messageId: message.id }, orderBy: { id: "asc" } });
    expect(revisions.map((r) => r.text)).toEqual(["v1", "v2"]);
    await t.settle();
  });

  it("answerChatSenders decides about anonymous admins, channel posts and automatic forwards", async () => {
    const asAdmin = () =>
      msg(
        0,
        opsRoom,
        { text: `${mention} hi`, entities: mentionEntity, sender_chat: opsRoom },
        { id: 1_087_968_824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" },
      );
    const asChannel = () =>
      msg(
        0,
        opsRoom,
        { text: `${mention} hi`, entities: mentionEntity, sender_chat: releaseChannel },
        { id: 136_817_688, is_bot: true, first_name: "Channel", username: "Channel_Bot" },
      );
    let id = 1100;
    const answered = async (body: ReturnType<typeof asAdmin>) =>
      (await post({ message: { ...body, message_id: ++id } })).body.result.answer;
    expect([await answered(asAdmin()), await answered(asChannel())]).toEqual([true, false]);
    await updateSettings(t.db, { answerChatSenders: "all" }, "test");
    expect([await answered(asAdmin()), await answered(asChannel())]).toEqual([true, true]);
    await updateSettings(t.db, { answerChatSenders: "none" }, "test");
    expect([await answered(asAdmin()), await answered(asChannel())]).toEqual([false, false]);
  });
});
