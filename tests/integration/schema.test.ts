import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrations.mjs";
import { POSTGRES_SKIP_REASON, databases, hasPostgres, type TestDb } from "../helpers/db";

describe("migrations", () => {
  it("reproduce prisma/schema.prisma exactly (npm run db:check)", () => {
    const out = execFileSync(process.execPath, ["scripts/check-migrations.mjs"], { encoding: "utf8" });
    expect(out).toContain("migrations match prisma/schema.prisma");
  });
  it.skipIf(hasPostgres)(`on PostgreSQL: ${POSTGRES_SKIP_REASON}`, () => {});
});

describe.each(databases)("the migrated $name database", ({ open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(async () => t.close());

  it("records applied migrations as Prisma does and applies nothing twice", async () => {
    expect(await migrate(t.url)).toEqual([]);
    const rows = await t.db.prisma.$queryRawUnsafe<{ migration_name: string; checksum: string; applied_steps_count: number | bigint }[]>(
      `SELECT migration_name, checksum, applied_steps_count FROM "_prisma_migrations"`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(Number(row.applied_steps_count)).toBe(1);
    }
  });

  it("writes and reads back every model the client knows", async () => {
    const { db } = t;
    const at = new Date("2026-11-20T10:00:00.000Z");
    const operator = await db.prisma.operator.create({ data: { name: "op", passwordHash: "scrypt$a$b" } });
    await db.prisma.operatorSession.create({ data: { operatorId: operator.id, tokenHash: "h", csrfToken: "c", expiresAt: at } });
    const conversation = await db.prisma.conversation.create({
      data: { channel: "telegram", platformChatId: "-1009007199254740993", type: "supergroup", title: "Big id", lastMessageAt: at },
    });
    const fork = await db.prisma.fork.create({
      data: { conversationId: conversation.id, kind: "background", status: "running", title: "digest" },
    });
    await db.prisma.conversation.update({ where: { id: conversation.id }, data: { activeForkId: fork.id } });
    const root = await db.prisma.message.create({
      data: {
        conversationId: conversation.id,
        direction: "inbound",
        senderKind: "user",
        senderName: "Ann",
        text: "root ✓ émoji 🎉",
        platformMessageId: "1",
        sentAt: at,
      },
    });
    const thread = await db.prisma.thread.create({ data: { conversationId: conversation.id, rootMessageId: root.id, lastMessageAt: at } });
    const reply = await db.prisma.message.create({
      data: {
        conversationId: conversation.id,
        direction: "outbound",
        senderKind: "agent",
        text: "reply",
        platformMessageId: "2",
        replyToMessageId: root.id,
        threadId: thread.id,
        forkId: fork.id,
        sentAt: at,
        quoteText: "root",
      },
    });
    await db.prisma.messageRevision.create({ data: { messageId: root.id, text: "old" } });
    await db.prisma.inboundUpdate.create({ data: { channel: "telegram", updateId: "99" } });
    const inbound = await db.prisma.envelope.create({
      data: {
        from: "channel:telegram:1",
        to: "agent:main",
        text: "root",
        metadata: { platformMessageId: "1", nested: { a: [1, 2] } },
        conversationId: conversation.id,
        messageId: root.id,
      },
    });
    const outbound = await db.prisma.envelope.create({
      data: {
        from: "agent:main",
        to: "channel:telegram:1",
        text: "reply",
        metadata: {},
        replyToEnvelopeId: inbound.id,
        deliverAt: at,
        dedupeKey: "reply:1",
      },
    });
    await db.prisma.turn.create({
      data: {
        envelopeId: inbound.id,
        conversationId: conversation.id,
        model: "m",
        system: "s",
        prompt: [{ role: "user", content: "x" }],
        toolCalls: [],
        usage: { totalTokens: 3 },
      },
    });
    await db.prisma.setting.create({ data: { key: "recencyWindow", value: 12 } });
    await db.prisma.settingChange.create({ data: { key: "recencyWindow", oldValue: 10, newValue: 12, changedBy: "op" } });

    const read = await db.prisma.message.findUniqueOrThrow({
      where: { id: reply.id },
      include: { replyTo: true, thread: true, fork: true },
    });
    expect(read.replyTo?.text).toBe("root ✓ émoji 🎉");
    expect(read.thread?.rootMessageId).toBe(root.id);
    expect(read.fork?.title).toBe("digest");
    expect(read.sentAt.toISOString()).toBe(at.toISOString());
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).activeForkId).toBe(fork.id);
    expect((await db.prisma.envelope.findUniqueOrThrow({ where: { id: inbound.id } })).metadata).toEqual({
      platformMessageId: "1",
      nested: { a: [1, 2] },
    });
    expect((await db.prisma.envelope.findUniqueOrThrow({ where: { id: outbound.id }, include: { replyTo: true } })).replyTo?.id).toBe(
      inbound.id,
    );
    expect((await db.prisma.turn.findUniqueOrThrow({ where: { envelopeId: inbound.id } })).usage).toEqual({ totalTokens: 3 });
    expect((await db.prisma.setting.findUniqueOrThrow({ where: { key: "recencyWindow" } })).value).toBe(12);
    expect(await db.prisma.settingChange.count()).toBe(1);
    expect(await db.prisma.messageRevision.count()).toBe(1);
    expect(await db.prisma.inboundUpdate.count()).toBe(1);
    expect(await db.prisma.operatorSession.count()).toBe(1);
    // Unique constraints hold: same platform message in one conversation, same dedupe key.
    await expect(
      db.prisma.message.create({
        data: {
          conversationId: conversation.id,
          direction: "inbound",
          senderKind: "user",
          text: "dup",
          platformMessageId: "1",
          sentAt: at,
        },
      }),
    ).rejects.toThrow();
    await expect(
      db.prisma.envelope.create({ data: { from: "a", to: "b", text: "t", metadata: {}, dedupeKey: "reply:1" } }),
    ).rejects.toThrow();
  });
});
