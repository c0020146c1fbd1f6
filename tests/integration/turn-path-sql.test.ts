import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadContextFacts } from "@/lib/context/load-facts";
import { attachmentsOf, previousSentAtOf, storedMessageSelect } from "@/lib/db/context-input";
import { findEnvelope, insertEnvelope } from "@/lib/db/envelopes";
import { findEnvelopeWithMessage } from "@/lib/db/turn-start";
import { readReplyGate } from "@/lib/db/handoff";
import { findMessage } from "@/lib/db/messages";
import { readMembership } from "@/lib/db/conversations";
import { saveTurn, saveTurnAndEnd } from "@/lib/db/turns";
import { databases, type TestDb } from "../helpers/db";

// The agent turn reads and writes on the hand-written path: what it reads must be
// what Prisma would have returned, and what it writes must read back through Prisma.
describe.each(databases)("the turn path's hand-written SQL on $name", ({ open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(() => t.close());

  async function seed() {
    const { db } = t;
    const conversation = await db.prisma.conversation.create({
      data: {
        channel: "telegram",
        platformChatId: "42",
        type: "group",
        title: "Ops",
        agentEnabled: false,
        lastMessageAt: new Date("2026-11-20T10:00:01.500Z"),
        membership: "kicked",
        generation: 3,
        waitingSince: new Date("2026-11-20T10:00:01.000Z"),
        snoozedUntil: new Date("2026-11-21T08:00:00.000Z"),
        statusChangedAt: new Date("2026-11-20T09:00:00.000Z"),
      },
    });
    const base = { conversationId: conversation.id, direction: "inbound", senderKind: "user", senderName: "Ada", text: "x" };
    const messages = [];
    // Same-second ties and a strictly earlier one, in and out of order of id.
    for (const [i, sentAt] of [
      "2026-11-20T10:00:01.000Z",
      "2026-11-20T10:00:00.000Z",
      "2026-11-20T10:00:01.000Z",
      "2026-11-20T10:00:01.000Z",
    ].entries()) {
      messages.push(
        await db.prisma.message.create({
          data: {
            ...base,
            text: `m${i}`,
            sentAt: new Date(sentAt),
            senderIsBot: i === 1,
            mentionsBot: i === 2,
            replyToSenderIsBot: i === 3 ? false : null,
            editedAt: i === 2 ? new Date("2026-11-20T10:05:00.123Z") : null,
          },
        }),
      );
    }
    const envelope = await db.prisma.envelope.create({
      data: {
        from: "user:1",
        to: "agent:main",
        text: "x",
        conversationId: conversation.id,
        messageId: messages[3].id,
        metadata: { platform: { a: 1 }, forkConflict: false },
        deliverAt: new Date("2026-11-20T10:00:02.000Z"),
      },
    });
    return { conversation, messages, envelope };
  }

  it("reads the envelope, the message with its conversation and membership as Prisma returns them", async () => {
    const { db } = t;
    const { conversation, messages, envelope } = await seed();
    expect(await findEnvelope(db, envelope.id)).toEqual(await db.prisma.envelope.findUnique({ where: { id: envelope.id } }));
    expect(await findEnvelope(db, envelope.id + 100)).toBeNull();
    for (const m of messages)
      expect(await findMessage(db, m.id)).toEqual(
        await db.prisma.message.findUnique({ where: { id: m.id }, include: { conversation: true } }),
      );
    expect(await findMessage(db, 9999)).toBeNull();
    expect(await readMembership(db, conversation.id)).toBe("kicked");
    expect(await readReplyGate(db, conversation.id)).toEqual({ handoffState: null, membership: "kicked" });
    // What a turn reads first, in one statement on PostgreSQL.
    expect(await findEnvelopeWithMessage(db, envelope.id)).toEqual({
      envelope: await db.prisma.envelope.findUnique({ where: { id: envelope.id } }),
      message: await db.prisma.message.findUnique({ where: { id: messages[3].id }, include: { conversation: true } }),
    });
  });

  it("reads the recency window in (sentAt, id) order with same-second ties, as the Prisma queries did", async () => {
    const { db } = t;
    const { messages } = await seed();
    const current = (await findMessage(db, messages[3].id))!;
    const input = await loadContextFacts(db, {
      conversation: current.conversation,
      current,
      needs: { recency: 3, replyNeighbours: 2, replyChainDepth: 2, pendingUpdates: 20 },
    });
    expect(input.session.map((m) => m.text)).toEqual(["m3", "m2", "m0"]);
    expect(input.session[1].text).toBe("m2");
    expect(input.session[1].editedAt).toEqual(new Date("2026-11-20T10:05:00.123Z"));
    expect(input.session[0].replyToSenderIsBot).toBe(false);
    expect(input.session[2].replyToSenderIsBot).toBeNull();
  });

  it("reads a main-session turn's window, predecessors' times and attachments (one statement on PostgreSQL) as the separate reads do", async () => {
    const { db } = t;
    const { conversation, messages } = await seed();
    // A fork's message: outside the main window, but still the chat's previous message for the time between.
    const fork = await db.prisma.fork.create({
      data: { conversationId: conversation.id, kind: "interactive", baseMessageId: messages[1].id, status: "closed" },
    });
    const inFork = await db.prisma.message.create({
      data: {
        conversationId: conversation.id,
        direction: "outbound",
        senderKind: "agent",
        senderName: "bot",
        text: "in fork",
        sentAt: new Date("2026-11-20T10:00:00.500Z"),
        forkId: fork.id,
      },
    });
    await db.prisma.message.update({ where: { id: messages[2].id }, data: { shared: { kind: "location", latitude: 1.5, longitude: 2 } } });
    for (const [position, kind] of ["photo", "document"].entries())
      await db.prisma.attachment.create({
        data: {
          messageId: messages[2].id,
          position,
          kind,
          source: "telegram",
          sourceRef: `f${position}`,
          status: position ? "failed" : "stored",
          error: position ? "too big" : null,
          sizeBytes: 1234,
          details: { emoji: "👍", nested: { a: [1, "b"] } },
        },
      });
    await db.prisma.attachment.create({
      data: { messageId: inFork.id, kind: "voice", source: "telegram", durationSeconds: 3, transcript: "hi" },
    });
    const current = (await findMessage(db, messages[3].id))!;
    for (const recency of [1, 3, 10]) {
      const input = await loadContextFacts(db, {
        conversation: current.conversation,
        current,
        needs: { recency, replyNeighbours: 2, replyChainDepth: 2, pendingUpdates: 20 },
      });
      const expected = await db.prisma.message.findMany({
        where: {
          conversationId: conversation.id,
          forkId: null,
          OR: [{ sentAt: { lt: current.sentAt } }, { sentAt: current.sentAt, id: { lte: current.id } }],
        },
        orderBy: [{ sentAt: "desc" }, { id: "desc" }],
        take: recency,
        select: storedMessageSelect,
      });
      expect(input.session).toEqual(expected);
      expect(input.previousSentAt).toEqual(await previousSentAtOf(db, expected));
      expect(input.attachments).toEqual(await attachmentsOf(db, expected));
      expect(input).toMatchObject({ forkBase: [], pendingUpdates: [], target: null, targetNeighbours: [], chain: [], burst: [] });
    }
    const full = await loadContextFacts(db, {
      conversation: current.conversation,
      current,
      needs: { recency: 10, replyNeighbours: 2, replyChainDepth: 2, pendingUpdates: 20 },
    });
    // The fork's message (10:00:00.5) came after m1 and before the 10:00:01 messages: their time since counts from it.
    expect(full.previousSentAt.get(messages[0].id)).toEqual(new Date("2026-11-20T10:00:00.500Z"));
    expect(full.previousSentAt.get(messages[2].id)).toEqual(new Date("2026-11-20T10:00:01.000Z"));
    expect(full.previousSentAt.get(messages[1].id)).toBeNull();
    expect(full.attachments?.get(messages[2].id)?.map((a) => [a.kind, a.status, a.details])).toEqual([
      ["photo", "stored", { emoji: "👍", nested: { a: [1, "b"] } }],
      ["document", "failed", { emoji: "👍", nested: { a: [1, "b"] } }],
    ]);
    expect(full.session.find((m) => m.id === messages[2].id)?.shared).toEqual({ kind: "location", latitude: 1.5, longitude: 2 });
  });

  it("reads JSON columns holding a JSON string or number as Prisma does (not parsed a second time)", async () => {
    const { db } = t;
    const { messages } = await seed();
    for (const [i, shared] of ["hello", "42", '{"type":"x"}', 7].entries()) {
      await db.prisma.message.update({ where: { id: messages[i].id }, data: { shared } });
      expect(await findMessage(db, messages[i].id)).toEqual(
        await db.prisma.message.findUnique({ where: { id: messages[i].id }, include: { conversation: true } }),
      );
    }
    const attachment = await db.prisma.attachment.create({
      data: { messageId: messages[0].id, kind: "sticker", source: "telegram", details: "hello" },
    });
    expect((await attachmentsOf(db, [messages[0]])).get(messages[0].id)?.[0]).toMatchObject({ id: attachment.id, details: "hello" });
  });

  it("writes the outbound envelope once per dedupe key and the turn record as Prisma reads them", async () => {
    const { db } = t;
    const { conversation, envelope } = await seed();
    const input = {
      from: "agent:main",
      to: "channel:telegram:42",
      text: "hi",
      status: "processing" as const,
      conversationId: conversation.id,
      replyToEnvelopeId: envelope.id,
      forkId: null,
      metadata: { inReplyToMessageId: 5 },
      dedupeKey: `reply:${envelope.id}`,
    };
    const first = await insertEnvelope(db, input);
    expect(first).not.toBeNull();
    expect(await insertEnvelope(db, input)).toBeNull();
    const stored = await db.prisma.envelope.findUnique({ where: { id: first!.id } });
    expect(stored).toMatchObject({
      status: "processing",
      threadRootId: envelope.id,
      replyToEnvelopeId: envelope.id,
      metadata: { inReplyToMessageId: 5 },
      attempts: 0,
      deliverAt: null,
    });
    expect(stored!.createdAt).toBeInstanceOf(Date);

    const turn = {
      envelopeId: envelope.id,
      conversationId: conversation.id,
      forkId: null,
      model: "p:m",
      system: "s",
      prompt: [{ role: "user", content: 'a "quoted" ü' }],
      toolCalls: [],
      usage: { inputTokens: 1 },
      latencyMs: 12,
    };
    await saveTurn(db, { ...turn, error: "first" });
    const before = await db.prisma.turn.findUnique({ where: { envelopeId: envelope.id } });
    await saveTurn(db, { ...turn, latencyMs: 30 });
    const after = await db.prisma.turn.findUnique({ where: { envelopeId: envelope.id } });
    expect(after).toMatchObject({ ...turn, latencyMs: 30, error: null });
    expect(after!.id).toBe(before!.id);
    expect(after!.createdAt).toEqual(before!.createdAt);
    expect(await db.prisma.turn.count()).toBe(1);

    // The turn record with its envelope's end, in one write: both land.
    await saveTurnAndEnd(db, { ...turn, latencyMs: 44, error: "not delivered" }, [envelope.id], {
      status: "failed",
      error: "not delivered",
      metadata: { replied: false },
    });
    expect(await db.prisma.turn.findUnique({ where: { envelopeId: envelope.id } })).toMatchObject({
      latencyMs: 44,
      error: "not delivered",
    });
    expect(await db.prisma.envelope.findUnique({ where: { id: envelope.id } })).toMatchObject({
      status: "failed",
      lastDeliveryError: "not delivered",
      metadata: { platform: { a: 1 }, forkConflict: false, replied: false },
      claimedBy: null,
    });
    // Neither without the other: a turn that cannot be written leaves the envelope as it was.
    await expect(saveTurnAndEnd(db, { ...turn, envelopeId: 999_999 }, [envelope.id], { status: "done" })).rejects.toThrow();
    expect(await db.prisma.envelope.findUnique({ where: { id: envelope.id } })).toMatchObject({ status: "failed" });
  });
});
