import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BOT } from "../fixtures/telegram";
import { lineCases, telegramCases, updateWithoutId, type Expectation } from "../fixtures/platform-updates";
import { LINE_SECRET, usePlatformApp } from "../helpers/platform-app";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

/**
 * Every fixture of tests/fixtures/platform-updates.ts through the real webhooks, in
 * order on one database, asserting what each one stored (sender, role, kind,
 * conversation and topic, reply target, text) or that it stored nothing.
 */
describe("platform corpus", () => {
  const h = usePlatformApp();

  const counts = async () => ({
    messages: await h.t.db.prisma.message.count(),
    envelopes: await h.t.db.prisma.envelope.count(),
    updates: await h.t.db.prisma.inboundUpdate.count(),
    conversations: await h.t.db.prisma.conversation.count(),
  });

  async function postLine(events: unknown[]) {
    const body = JSON.stringify({ destination: "Ubot000", events });
    const signature = createHmac("sha256", LINE_SECRET).update(body).digest("base64");
    const response = await receiveWebhook(
      h.t.app.inbound,
      "line",
      new Request("http://localhost/api/webhooks/line", {
        method: "POST",
        headers: { "content-type": "application/json", "x-line-signature": signature },
        body,
      }),
    );
    return { status: response.status, body: (await response.json()) as { results: Record<string, unknown>[] } };
  }

  async function check(
    channel: string,
    status: number,
    result: Record<string, any> | undefined,
    expected: Expectation,
    before: Awaited<ReturnType<typeof counts>>,
  ) {
    if (expected.result === "rejected") {
      expect(status).toBe(400);
      expect(await counts()).toEqual(before);
      return;
    }
    expect(status).toBe(200);
    expect(result?.status).toBe(expected.result);
    switch (expected.result) {
      case "stored": {
        const message = await h.t.db.prisma.message.findUniqueOrThrow({
          where: { id: result!.messageId },
          include: { conversation: true, envelopes: true, attachments: true },
        });
        expect(message.conversation.channel).toBe(channel);
        expect(message.conversation.platformChatId).toBe(expected.conversation);
        if (expected.topicName !== undefined) expect(message.conversation.topicName).toBe(expected.topicName);
        expect(message.senderName).toBe(expected.sender);
        if (expected.senderIsBot !== undefined) expect(message.senderIsBot).toBe(expected.senderIsBot);
        if (expected.role !== undefined) expect(message.senderRole).toBe(expected.role);
        expect(message.text).toBe(expected.text);
        // Nothing dropped: media become attachments or shared items, never a marker in the text.
        const media = message.attachments[0]?.kind ?? (message.shared as { type?: string } | null)?.type;
        expect(media).toBe(expected.media);
        expect(message.direction).toBe("inbound");
        if (expected.replyTo === null) {
          expect([message.replyToMessageId, message.replyToPlatformId, message.replyToText]).toEqual([null, null, null]);
        } else {
          expect(message.replyToPlatformId).toBe(expected.replyTo.platformId);
          expect(message.replyToMessageId !== null).toBe(expected.replyTo.stored);
          if (expected.replyTo.text !== undefined) expect(message.replyToText).toBe(expected.replyTo.text);
          if (expected.replyTo.senderName !== undefined) expect(message.replyToSenderName).toBe(expected.replyTo.senderName);
          if (expected.replyTo.chatTitle !== undefined) expect(message.replyToChatTitle).toBe(expected.replyTo.chatTitle);
        }
        if (expected.forwardedFrom !== undefined) expect(message.forwardedFrom).toBe(expected.forwardedFrom);
        if (expected.viaBot !== undefined) expect(message.viaBot).toBe(expected.viaBot);
        if (expected.quote !== undefined) expect(message.quoteText).toBe(expected.quote);
        if (expected.mentionsBot !== undefined) expect(message.mentionsBot).toBe(expected.mentionsBot);
        expect(result!.answer).toBe(expected.answer);
        // The inbound envelope exists either way; only an answered one was pending.
        expect(message.envelopes).toHaveLength(1);
        break;
      }
      case "edited": {
        const message = await h.t.db.prisma.message.findUniqueOrThrow({
          where: { id: result!.messageId },
          include: { conversation: true, revisions: true },
        });
        expect(message.conversation.platformChatId).toBe(expected.conversation);
        expect(message.text).toBe(expected.text);
        expect(message.editedAt).not.toBeNull();
        expect(message.revisions.map((r) => r.text)).toEqual([expected.previous]);
        break;
      }
      case "ignored":
        expect(result!.reason).toMatch(expected.reason);
        expect(await counts()).toEqual(before);
        break;
      case "duplicate":
        expect(await counts()).toEqual(before);
        break;
      case "membership": {
        const conversation = await h.t.db.prisma.conversation.findFirstOrThrow({
          where: { channel, platformChatId: expected.conversation },
        });
        expect(conversation.membership).toBe(expected.membership);
        expect(result!.membership).toBe(expected.membership);
        break;
      }
      case "topic": {
        const conversation = await h.t.db.prisma.conversation.findFirstOrThrow({
          where: { channel, platformChatId: expected.conversation },
        });
        expect(conversation.topicName).toBe(expected.topicName);
        expect(await h.t.db.prisma.message.count()).toBe(before.messages);
        break;
      }
      case "deleted":
        expect(result!.found).toBe(expected.found);
        break;
    }
  }

  it("has at least 80 updates, covering every Update field the Bot API documents", () => {
    expect(telegramCases.length + lineCases.length).toBeGreaterThanOrEqual(80);
    const fields = new Set(telegramCases.flatMap((c) => Object.keys(c.update)).filter((k) => k !== "update_id"));
    for (const field of [
      "message",
      "edited_message",
      "channel_post",
      "edited_channel_post",
      "business_connection",
      "business_message",
      "edited_business_message",
      "deleted_business_messages",
      "message_reaction",
      "message_reaction_count",
      "inline_query",
      "chosen_inline_result",
      "callback_query",
      "shipping_query",
      "pre_checkout_query",
      "purchased_paid_media",
      "poll",
      "poll_answer",
      "my_chat_member",
      "chat_member",
      "chat_join_request",
      "chat_boost",
      "removed_chat_boost",
    ]) {
      expect(fields, field).toContain(field);
    }
  });

  it.each(telegramCases.map((c) => [c.name, c] as const))("Telegram: %s", async (_name, c) => {
    const before = await counts();
    const response = await h.t.post(c.update);
    await check("telegram", response.status, response.body?.result, c.expect, before);
  });

  it("Telegram: an update without update_id is a 400 and stores nothing", async () => {
    const before = await counts();
    expect((await h.t.post(updateWithoutId)).status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it.each(lineCases.map((c) => [c.name, c] as const))("LINE: %s", async (_name, c) => {
    const before = await counts();
    const response = await postLine([c.event]);
    await check("line", response.status, response.body.results[0], c.expect, before);
  });

  it("the dashboard's grouping: topics point to their chat's conversation, which has no messages of theirs", async () => {
    const chat = await h.t.db.prisma.conversation.findFirstOrThrow({ where: { channel: "telegram", platformChatId: "-1002000000002" } });
    const topics = await h.t.db.prisma.conversation.findMany({ where: { parentConversationId: chat.id }, orderBy: { topicId: "asc" } });
    expect(topics.map((c) => [c.topicId, c.topicName])).toEqual([
      ["500", "Billing & invoices"],
      ["510", "Announcements"],
    ]);
    // The General topic's message is the chat's own; topic messages are not.
    expect(await h.t.db.prisma.message.count({ where: { conversationId: chat.id } })).toBe(1);
  });

  it("LINE: the message without an id is deduplicated by webhookEventId on redelivery", async () => {
    const event = lineCases.at(-1)!.event;
    const before = await counts();
    const response = await postLine([{ ...event, deliveryContext: { isRedelivery: true } }]);
    expect(response.body.results[0]).toEqual({ status: "duplicate" });
    expect(await counts()).toEqual(before);
  });

  it("the bot identity used by the fixtures is the fake Bot API's", async () => {
    expect(await h.t.app.telegram.identity()).toEqual({ id: BOT.id, username: BOT.username });
  });
});
