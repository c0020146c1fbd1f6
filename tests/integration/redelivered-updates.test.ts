import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BOT } from "../fixtures/telegram";
import { dana, forum, opsRoom, privateChat } from "../fixtures/platform-updates";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

/**
 * Telegram redelivers an update (same update_id, same body) whenever our answer did
 * not reach it. Only the update-id check (`InboundUpdate`'s unique key) tells such a
 * redelivery from a new update for the updates that are not new messages: an edit
 * already superseded by a later one, and a change of the bot's membership. Each must
 * come back `duplicate` and change nothing.
 */
describe.each(databases)("redelivered updates on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;
  let clock = 1_764_000_000;

  beforeAll(async () => {
    telegram = await startFakeTelegram();
  });
  afterAll(() => telegram.close());
  beforeEach(async () => {
    testDb = await open();
    t = await startTestApp({ db: testDb, telegram, model: null });
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  // A topic's messages take the statement by statement path on both databases; a private chat's, on
  // PostgreSQL, the one statement that records the update id with the conversation (lib/db/ingest.ts).
  const topicCreation = (date: number) => ({
    message_id: 3200,
    from: dana,
    chat: forum,
    date,
    message_thread_id: 3200,
    is_topic_message: true,
    forum_topic_created: { name: "Billing", icon_color: 7_322_096 },
  });
  const chats = [
    { name: "a private chat", chat: privateChat, topic: null },
    { name: "a forum topic", chat: forum, topic: 3200 },
  ];
  it.each(chats)(
    "an edit in $name delivered again after a later edit superseded it: duplicate, no new revision, the latest text stays",
    async ({ chat, topic }) => {
      const sentAt = ++clock;
      const inTopic = topic ? { message_thread_id: topic, is_topic_message: true, reply_to_message: topicCreation(sentAt - 1) } : {};
      if (topic) expect((await t.post({ update_id: 80_000, message: topicCreation(sentAt - 1) })).status).toBe(200);
      const message = { message_id: 3101, from: dana, chat, date: sentAt, ...inTopic };
      const original = await t.post({ update_id: 80_001, message: { ...message, text: "meet at 5" } });
      expect(original.body.result).toMatchObject({ status: "stored" });
      const firstEdit = { update_id: 80_002, edited_message: { ...message, text: "meet at 6", edit_date: sentAt + 30 } };
      const secondEdit = { update_id: 80_003, edited_message: { ...message, text: "meet at 7", edit_date: sentAt + 60 } };
      expect((await t.post(firstEdit)).body.result).toMatchObject({ status: "edited" });
      expect((await t.post(secondEdit)).body.result).toMatchObject({ status: "edited" });
      const messageId = original.body.result.messageId as number;
      const revisions = () => t.db.prisma.messageRevision.findMany({ where: { messageId }, orderBy: { id: "asc" } });
      const before = await revisions();
      expect(before.map((r) => r.text)).toEqual(["meet at 5", "meet at 6"]);

      // Both edits again, exactly as sent the first time.
      expect((await t.post(firstEdit)).body.result).toEqual({ status: "duplicate" });
      expect((await t.post(secondEdit)).body.result).toEqual({ status: "duplicate" });
      expect(await revisions()).toEqual(before);
      expect(await t.db.prisma.message.findUniqueOrThrow({ where: { id: messageId } })).toMatchObject({
        text: "meet at 7",
        editedAt: new Date((sentAt + 60) * 1000),
      });
    },
  );

  it("a membership change delivered again: duplicate, the conversation untouched", async () => {
    const botUser = { id: BOT.id, is_bot: true, first_name: "Switchboard", username: BOT.username };
    const added = {
      update_id: 80_101,
      my_chat_member: {
        chat: opsRoom,
        from: dana,
        date: ++clock,
        old_chat_member: { user: botUser, status: "left" },
        new_chat_member: { user: botUser, status: "member" },
      },
    };
    const removed = {
      update_id: 80_102,
      my_chat_member: {
        chat: opsRoom,
        from: dana,
        date: ++clock,
        old_chat_member: { user: botUser, status: "member" },
        new_chat_member: { user: botUser, status: "kicked", until_date: 0 },
      },
    };
    expect((await t.post(added)).body.result).toMatchObject({ status: "membership" });
    expect((await t.post(removed)).body.result).toMatchObject({ status: "membership", membership: "removed" });
    const conversation = () => t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: String(opsRoom.id) } });
    const before = await conversation();
    expect(before.membership).toBe("removed");

    expect((await t.post(removed)).body.result).toEqual({ status: "duplicate" });
    expect((await t.post(added)).body.result).toEqual({ status: "duplicate" });
    expect(await conversation()).toEqual(before);
    expect(await t.db.prisma.inboundUpdate.count()).toBe(2);
  });
});
