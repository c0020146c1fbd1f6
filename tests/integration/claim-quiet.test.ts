import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimTurns, type QueuedEnvelope } from "@/lib/db/claim";
import { planTurn } from "@/lib/pipeline/turn-plan";
import { databases, type TestDb } from "../helpers/db";

/**
 * The claim does not read the queues of conversations whose oldest waiting
 * message is still inside the debounce (under load that was most of what each
 * claim read); it wakes the worker when the first of them comes out of it.
 */
describe.each(databases)("the claim and the debounce on $name", ({ open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(async () => {
    await t.close();
  });

  async function userMessage(chat: string, createdAt: Date) {
    const conversation = await t.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: chat, type: "private" } });
    const message = await t.db.prisma.message.create({
      data: { conversationId: conversation.id, direction: "inbound", senderKind: "user", text: `hi from ${chat}`, sentAt: createdAt },
    });
    await t.db.prisma.envelope.create({
      data: {
        from: `channel:telegram`,
        to: "agent:main",
        text: `hi from ${chat}`,
        metadata: {},
        conversationId: conversation.id,
        messageId: message.id,
        createdAt,
      },
    });
    return conversation.id;
  }

  const claim = (now: Date, quietMs: number, read: number[]) =>
    claimTurns(t.db, {
      worker: "w",
      now,
      leaseMs: 60_000,
      take: 10,
      busy: new Set(),
      served: [],
      channelMailOnly: false,
      quietMs,
      plan: (queue: QueuedEnvelope[]) => {
        read.push(queue[0].id);
        return planTurn(queue, { now, debounceMs: quietMs, modelPausedUntil: null });
      },
    });

  it("skips a conversation inside the debounce without reading it, wakes at its end, and takes it then", async () => {
    const t0 = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    await userMessage("old", new Date(t0.getTime() - 5_000));
    const fresh = await userMessage("fresh", new Date(t0.getTime() - 400));

    const read: number[] = [];
    const first = await claim(t0, 1_000, read);
    expect(first.turns.map((turn) => turn.conversationId)).not.toContain(fresh);
    expect(first.turns).toHaveLength(1);
    expect(read).toHaveLength(1); // only the conversation that was due
    expect(first.wakeAt?.getTime()).toBe(t0.getTime() + 600);

    const later = await claim(new Date(t0.getTime() + 600), 1_000, []);
    expect(later.turns.map((turn) => turn.conversationId)).toEqual([fresh]);
  });

  it("does not wake for a message in a conversation whose turn is running: that turn's end does", async () => {
    const t0 = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    const busy = await userMessage("busy", new Date(t0.getTime() - 400));
    await t.db.prisma.envelope.create({
      data: {
        from: "channel:telegram",
        to: "agent:main",
        text: "earlier",
        metadata: {},
        conversationId: busy,
        status: "processing",
        leaseUntil: new Date(t0.getTime() + 60_000),
        createdAt: new Date(t0.getTime() - 5_000),
      },
    });
    const result = await claim(t0, 1_000, []);
    expect(result.turns).toEqual([]);
    expect(result.wakeAt?.getTime()).toBe(t0.getTime() + 60_000); // only the lease's end
  });

  it("with no debounce every waiting message is due at once", async () => {
    const t0 = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    const fresh = await userMessage("fresh", t0);
    const result = await claim(t0, 0, []);
    expect(result.turns.map((turn) => turn.conversationId)).toEqual([fresh]);
  });
});
