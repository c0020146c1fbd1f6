import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryError, type ChannelAdapter } from "@/lib/channels/types";
import { appendOutboundMessage } from "@/lib/db/messages";
import { findTurnForMessage, turnNeighbours } from "@/lib/db/turns";
import { sendToChat } from "@/lib/pipeline/send-to-chat";
import { update } from "../fixtures/telegram";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { useScriptedApp } from "../helpers/harness";
import type { scriptedModel } from "../helpers/mock-model";

describe("the agent's turn with the reply tool (AI SDK mock model)", () => {
  const app = useScriptedApp();

  async function run(steps: Parameters<typeof scriptedModel>[0], text = "hi") {
    const { calls } = await app.start(steps);
    const t = app.t;
    await t.post(update({ messageId: 900, text }));
    await t.settle();
    const turn = await t.db.prisma.turn.findFirst();
    return { calls, turn, outbound: await t.db.prisma.message.findMany({ where: { direction: "outbound" } }) };
  }

  it("tool called once: one send, one stored assistant message, turn recorded", async () => {
    const { calls, outbound, turn } = await run([{ replies: ["Hi there!"] }]);
    expect(app.telegram.sends().map((c) => c.body.text)).toEqual(["Hi there!"]);
    // The reply ended the turn: the tool's result is not sent back for another model call.
    expect(calls).toHaveLength(1);
    expect(outbound.map((m) => [m.senderKind, m.text])).toEqual([["agent", "Hi there!"]]);
    expect(turn).toMatchObject({ model: "mock:scripted", error: null });
    expect(turn!.toolCalls).toEqual([{ message: "Hi there!", outcome: { status: "sent" } }]);
    expect(turn!.usage).toMatchObject({ inputTokens: 10, outputTokens: 4 });
    expect(turn!.system).toContain("call the `reply` tool");
  });

  it("the inspector finds the turn from the user's message and from the agent's answer, and its neighbours", async () => {
    const { turn } = await run([{ replies: ["first answer"] }, { replies: ["second answer"] }]);
    await app.t.post(update({ messageId: 901, text: "again" }));
    await app.t.settle();
    const turns = await app.t.db.prisma.turn.findMany({ orderBy: { id: "asc" } });
    expect(turns).toHaveLength(2);
    const user = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: "hi" } });
    const answer = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: "first answer" } });
    expect(await findTurnForMessage(app.t.db, user.id)).toBe(turn!.id);
    expect(await findTurnForMessage(app.t.db, answer.id)).toBe(turn!.id);
    const second = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: "second answer" } });
    expect(await findTurnForMessage(app.t.db, second.id)).toBe(turns[1].id);
    expect(await findTurnForMessage(app.t.db, 987654)).toBeNull();
    expect(await turnNeighbours(app.t.db, turns[0])).toEqual({ previousTurnId: null, nextTurnId: turns[1].id });
    expect(await turnNeighbours(app.t.db, turns[1])).toEqual({ previousTurnId: turns[0].id, nextTurnId: null });
  });

  it("no tool call: nothing is sent, the envelope is done", async () => {
    const { outbound, turn } = await run([{ text: "No need to answer." }]);
    expect(app.telegram.sends()).toHaveLength(0);
    expect(outbound).toHaveLength(0);
    expect(turn!.toolCalls).toEqual([]);
    const envelope = await app.t.db.prisma.envelope.findFirst();
    expect(envelope).toMatchObject({ status: "done" });
    expect((envelope!.metadata as Record<string, unknown>).replied).toBe(false);
  });

  it("tool called twice in one step: one send, the second call gets a model-friendly error", async () => {
    const { outbound, turn } = await run([{ replies: ["first", "second"] }]);
    expect(app.telegram.sends().map((c) => c.body.text)).toEqual(["first"]);
    expect(outbound).toHaveLength(1);
    expect(turn!.toolCalls).toEqual([{ message: "first", outcome: { status: "sent" } }]);
  });

  it("tool called again in a later step: still one send", async () => {
    await run([{ replies: ["first"] }, { replies: ["again"] }]);
    expect(app.telegram.sends().map((c) => c.body.text)).toEqual(["first"]);
  });

  it("send failure: the model gets 'failed to send reply', the envelope records the error", async () => {
    app.telegram.failNext({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } });
    const { calls, turn } = await run([{ replies: ["hello?"] }]);
    expect(turn!.toolCalls).toEqual([{ message: "hello?", outcome: { error: "failed to send reply" } }]);
    // The tool's error went back to the model in the next step.
    expect(JSON.stringify(calls[1])).toContain("failed to send reply");
    const failed = await app.t.db.prisma.envelope.findFirst({ where: { from: "agent:main" } });
    expect(failed).toMatchObject({ status: "failed", lastDeliveryError: "Telegram 400: Bad Request: chat not found" });
  });

  it("a model error before any reply is retried later, then answered once", async () => {
    const { turn } = await run([{ error: new Error("upstream 503") }, { replies: ["back again"] }]);
    expect(app.telegram.sends().map((c) => c.body.text)).toEqual(["back again"]);
    expect(turn!.error).toBeNull();
    expect((await app.t.db.prisma.envelope.findFirst({ orderBy: { id: "asc" } }))!.attempts).toBe(2);
  });

  it("a model that keeps failing ends the envelope failed, visible to operators", async () => {
    const failing = Array.from({ length: 5 }, () => ({ error: new Error("upstream timeout") }));
    await run(failing);
    const envelope = await app.t.db.prisma.envelope.findFirst({ orderBy: { id: "asc" } });
    expect(envelope!.status).toBe("failed");
    expect(envelope!.lastDeliveryError).toMatch(/gave up after 4 attempts: model call failed: upstream timeout/);
    expect(app.telegram.sends()).toHaveLength(0);
  });
});

describe("saving the assistant message", () => {
  let testDb: TestDb;
  beforeEach(async () => {
    testDb = await sqliteTestDb();
  });
  afterEach(() => testDb.close());

  it("a concurrent writer during the send loses no message: both are in the history", async () => {
    const { db } = testDb;
    const conversation = await db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "1", type: "private" } });
    const target = await db.prisma.message.create({
      data: {
        conversationId: conversation.id,
        direction: "inbound",
        senderKind: "user",
        text: "q",
        platformMessageId: "1",
        sentAt: new Date(),
      },
    });
    let interfered = false;
    const racing: ChannelAdapter = {
      name: "telegram",
      mode: "sandbox",
      async send() {
        // Another writer appends while our send is in flight.
        await appendOutboundMessage(db, {
          conversationId: conversation.id,
          senderKind: "operator",
          senderName: "op",
          text: "operator was faster",
          platformMessageId: "500",
          sentAt: new Date(),
          replyTo: null,
          forkId: null,
        });
        interfered = true;
        return { platformMessageId: "501", sentAt: new Date() };
      },
    };
    const result = await sendToChat(
      { db, channels: { telegram: racing } },
      {
        from: "agent:main",
        senderKind: "agent",
        senderName: "main",
        conversation,
        text: "agent answer",
        replyTo: { ...target, platformTopicId: null },
        replyToEnvelopeId: null,
        forkId: null,
      },
    );
    expect(interfered).toBe(true);
    expect(result.kind).toBe("sent");
    const texts = (await db.prisma.message.findMany({ where: { direction: "outbound" }, orderBy: { id: "asc" } })).map((m) => m.text);
    expect(texts).toEqual(["operator was faster", "agent answer"]);
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).generation).toBe(2);
  });

  it("a dedupe key makes a second delivery of the same answer send nothing", async () => {
    const { db } = testDb;
    const conversation = await db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "1", type: "private" } });
    let sends = 0;
    const channel: ChannelAdapter = {
      name: "telegram",
      mode: "sandbox",
      send: async () => ({ platformMessageId: String(++sends), sentAt: new Date() }),
    };
    const input = {
      from: "agent:main",
      senderKind: "agent" as const,
      senderName: "main",
      conversation,
      text: "once",
      replyTo: null,
      replyToEnvelopeId: null,
      forkId: null,
      dedupeKey: "reply:42",
    };
    const first = await sendToChat({ db, channels: { telegram: channel } }, input);
    const second = await sendToChat({ db, channels: { telegram: channel } }, input);
    expect(first.kind).toBe("sent");
    expect(second).toMatchObject({ kind: "duplicate", earlier: "delivered" });
    expect(sends).toBe(1);
  });

  it("after a refused send the same key may send again; after an unknown outcome it never does, and says so", async () => {
    const { db } = testDb;
    const conversation = await db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "1", type: "private" } });
    const failures: DeliveryError[] = [
      new DeliveryError("Telegram 403: Forbidden: bot was blocked by the user", { outcome: "not_sent", retryable: false }),
    ];
    let sends = 0;
    const channel: ChannelAdapter = {
      name: "telegram",
      mode: "live",
      send: async () => {
        sends++;
        const failure = failures.shift();
        if (failure) throw failure;
        return { platformMessageId: String(sends), sentAt: new Date() };
      },
    };
    const deps = { db, channels: { telegram: channel } };
    const input = {
      from: "agent:main",
      senderKind: "agent" as const,
      senderName: "main",
      conversation,
      text: "hello",
      replyTo: null,
      replyToEnvelopeId: null,
      forkId: null,
      dedupeKey: "reply:7",
    };
    expect(await sendToChat(deps, input)).toMatchObject({ kind: "failed", outcome: "not_sent" });
    expect(await db.prisma.message.count({ where: { direction: "outbound" } })).toBe(0);
    // The user got nothing: the retry sends (and reuses the envelope).
    expect(await sendToChat(deps, input)).toMatchObject({ kind: "sent" });
    expect(await db.prisma.envelope.count({ where: { dedupeKey: "reply:7" } })).toBe(1);

    // A hang (timeout): maybe delivered. Kept in the history, marked; a retry sends nothing and does not claim it was answered.
    failures.push(new DeliveryError("Telegram unreachable: Request timed out", { outcome: "unknown", retryable: true }));
    const hung = { ...input, text: "after the hang", dedupeKey: "reply:8" };
    expect(await sendToChat(deps, hung)).toMatchObject({ kind: "failed", outcome: "unknown" });
    const kept = await db.prisma.message.findFirstOrThrow({ where: { text: "after the hang" }, include: { envelopes: true } });
    expect(kept.platformMessageId).toBeNull();
    expect(kept.envelopes[0]).toMatchObject({ status: "failed", lastDeliveryError: expect.stringMatching(/possibly delivered/) });
    const sendsBefore = sends;
    expect(await sendToChat(deps, hung)).toMatchObject({ kind: "duplicate", earlier: "unknown" });
    expect(sends).toBe(sendsBefore);
  });
});
