import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimTurns } from "@/lib/db/claim";
import type { Database } from "@/lib/db/database";
import { databases, type TestDb } from "../helpers/db";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const at = (msAgo: number) => new Date(NOW - msAgo);

/** Conversation `id` with one waiting chat message per entry of `arrivals` (ms ago), and its last turn's end. */
async function seedConversations(db: Database, chats: { id: number; arrivals: number[]; servedAgo?: number }[]) {
  await db.prisma.conversation.createMany({
    data: chats.map((c) => ({
      id: c.id,
      channel: "telegram",
      platformChatId: String(c.id),
      type: "private",
      updatedAt: at(0),
      servedAt: c.servedAgo === undefined ? null : at(c.servedAgo),
    })),
  });
  const messages = chats.flatMap((c) => c.arrivals.map((ago, i) => ({ c, ago, i })));
  await db.prisma.message.createMany({
    data: messages.map(({ c, i }) => ({
      id: c.id * 1_000 + i,
      conversationId: c.id,
      direction: "inbound",
      senderKind: "user",
      text: "hello",
      platformMessageId: String(i),
      sentAt: at(0),
    })),
  });
  await db.prisma.envelope.createMany({
    data: messages.map(({ c, ago, i }) => ({
      from: `channel:telegram:${c.id}`,
      to: "agent:main",
      text: "hello",
      conversationId: c.id,
      messageId: c.id * 1_000 + i,
      metadata: {},
      createdAt: at(ago),
      updatedAt: at(0),
    })),
  });
}

async function claimOrder(db: Database, take: number) {
  const { turns } = await claimTurns(db, {
    worker: "w",
    now: new Date(NOW),
    leaseMs: 60_000,
    take,
    busy: new Set(),
    served: [],
    channelMailOnly: false,
    quietMs: 1_000,
    plan: (queue) => ({ take: queue }),
  });
  return turns.map((t) => t.conversationId);
}

/**
 * With a deep queue the claim reads only the oldest waiting envelopes (up to a horizon),
 * falling back to the whole queue when that cannot be exact: either way the order is
 * the same oldest-wait-first, round-robin one.
 */
describe.each(databases)("the claim with a deep queue on $name", ({ open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(async () => {
    await t.close();
  });

  it("many quiet chats: the longest waits first, a chat served just now after them", async () => {
    // 300 chats waiting 10 min … 10 min − 299 s; chat 1 has older mail but its last turn ended just now.
    const quiet = Array.from({ length: 300 }, (_, i) => ({ id: 100 + i, arrivals: [600_000 - i * 1_000] }));
    await seedConversations(t.db, [{ id: 1, arrivals: [900_000, 899_000], servedAgo: 2_000 }, ...quiet]);
    expect(await claimOrder(t.db, 5)).toEqual([100, 101, 102, 103, 104]);
    // Served conversations wait from their turn's end: one served 591.5 s ago comes between the others.
    await t.db.prisma.conversation.update({ where: { id: 1 }, data: { servedAt: at(591_500) } });
    expect(await claimOrder(t.db, 3)).toEqual([105, 106, 107]);
    expect(await claimOrder(t.db, 3)).toEqual([108, 1, 109]);
  });

  it("one chat with hundreds queued ahead of everyone: quiet chats still come first once it was served", async () => {
    const busy = { id: 1, arrivals: Array.from({ length: 400 }, (_, i) => 900_000 - i), servedAgo: 1_000 };
    const quiet = Array.from({ length: 20 }, (_, i) => ({ id: 100 + i, arrivals: [600_000 - i * 1_000] }));
    await seedConversations(t.db, [busy, ...quiet]);
    expect(await claimOrder(t.db, 4)).toEqual([100, 101, 102, 103]);
    const rest = await claimOrder(t.db, 50);
    expect(rest).toEqual([...quiet.slice(4).map((c) => c.id), 1]);
  });
});
