import { createRequire } from "node:module";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "@/lib/channels/types";
import { sqlitePath } from "@/lib/db/migrations.mjs";
import { findEnvelope } from "@/lib/db/envelopes";
import { findEnvelopeWithMessage } from "@/lib/db/turn-start";
import { appendOutboundMessage, findMessage } from "@/lib/db/messages";
import { joinThread, recordUpdateAndConversation } from "@/lib/db/ingest";
import { ingestInbound } from "@/lib/pipeline/ingest";
import { openDb } from "@/lib/db/database";
import { sqliteDriverPath } from "@/lib/db/sqlite-driver";
import { databases, sqliteTestDb, type TestDb } from "../helpers/db";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function inbound(updateId: number, overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: "telegram",
    kind: "new",
    updateId: String(updateId),
    chat: { id: "42", type: "private" },
    sender: { id: "7", name: "Ada", isBot: false },
    message: { id: String(updateId), text: `hello ${updateId}`, sentAt: new Date("2026-11-20T10:00:00.250Z") },
    addressesBot: false,
    ...overrides,
  } as InboundMessage;
}

describe("the shared SQLite connection", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await sqliteTestDb();
  });
  afterEach(() => t.close());

  // Prisma's adapter ran queries outside a transaction inside whichever one was
  // open: this write was acknowledged, then rolled back with the other transaction.
  it("keeps a write made outside a transaction when a concurrent transaction rolls back", async () => {
    const { db } = t;
    const failing = db.prisma
      .$transaction(async (tx) => {
        await tx.inboundUpdate.create({ data: { channel: "x", updateId: "1" } });
        await sleep(50);
        throw new Error("roll back");
      })
      .catch((error: Error) => error.message);
    await sleep(10);
    const created = await db.prisma.conversation.create({ data: { channel: "x", platformChatId: "9", type: "private" } });
    expect(await failing).toBe("roll back");
    expect(await db.prisma.conversation.findUnique({ where: { id: created.id } })).not.toBeNull();
    expect(await db.prisma.inboundUpdate.count()).toBe(0);
  });

  it("never shows a read outside a transaction another transaction's uncommitted rows", async () => {
    const { db } = t;
    let release!: () => void;
    const open = db.prisma
      .$transaction(async (tx) => {
        await tx.inboundUpdate.create({ data: { channel: "x", updateId: "1" } });
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error("roll back");
      })
      .catch(() => "rolled back");
    await sleep(10);
    // .then() starts it now (a Prisma query runs when first awaited).
    const counted = db.prisma.inboundUpdate.count().then((n) => n);
    await sleep(10);
    release();
    expect(await open).toBe("rolled back");
    // The read waited for the transaction to end instead of reading its uncommitted row.
    expect(await counted).toBe(0);
  });

  it("commits transactions that arrive together once, rolls back a failing one alone, and resolves only when durable", async () => {
    const { db, url } = t;
    const observer = new Database(sqlitePath(url), { readonly: true });
    const version = () => observer.pragma("data_version", { simple: true }) as number;
    try {
      const before = version();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          db
            .transaction(async (sql) => {
              await sql.run(
                `INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES (?, ?, ?)`,
                "x",
                String(i),
                new Date(),
              );
              if (i === 7) throw new Error("job 7 fails");
              // Another connection sees the row as soon as the caller is told it is stored.
              return i;
            })
            .then((i) => {
              const row = observer.prepare(`SELECT 1 FROM "InboundUpdate" WHERE "updateId" = ?`).get(String(i));
              expect(row).toBeDefined();
              return i;
            }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(19);
      expect(results[7]).toMatchObject({ status: "rejected", reason: { message: "job 7 fails" } });
      expect(observer.prepare(`SELECT COUNT(*) AS n FROM "InboundUpdate"`).get()).toEqual({ n: 19 });
      // data_version changes once per commit made by another connection.
      expect(version() - before).toBe(1);
    } finally {
      observer.close();
    }
  });
});

describe("checkpoints on a worker thread (the server's SQLite connection)", () => {
  let t: TestDb;
  beforeEach(async () => {
    t = await sqliteTestDb();
  });
  afterEach(() => t.close());

  it("open the same SQLite library as Prisma's connection (two copies in one process lose commits)", () => {
    // With Prisma's adapter on its own better-sqlite3 (12, beside our 13) this file's
    // checkpoint test below lost 2–4 whole batches of 25 acknowledged rows in 3 runs of 12.
    expect(sqliteDriverPath()).toBe(createRequire(import.meta.url).resolve("better-sqlite3"));
  });

  it("take the WAL checkpoint out of the commits and copy every committed page back", async () => {
    const db = await openDb(t.url, { backgroundCheckpoints: true });
    const observer = new Database(sqlitePath(t.url), { readonly: true });
    try {
      const connection = db.sqliteConnection!;
      expect(connection.checkpointer).toBeDefined();
      expect(await db.prisma.$queryRawUnsafe<{ wal_autocheckpoint: bigint }[]>("PRAGMA wal_autocheckpoint")).toEqual([
        { wal_autocheckpoint: 0n },
      ]);
      // Well past the 1,000 pages at which a commit would otherwise checkpoint.
      for (let batch = 0; batch < 40; batch++) {
        await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            db.transaction((sql) =>
              sql.run(
                `INSERT INTO "Operator" ("name", "passwordHash", "createdAt") VALUES (?, ?, ?)`,
                `op-${batch}-${i}`,
                "x".repeat(2000),
                new Date(),
              ),
            ),
          ),
        );
      }
      const result = await connection.checkpointer!.checkpoint();
      expect(result).toMatchObject({ ok: true, busy: 0 });
      if (!result.ok) throw new Error(result.error);
      expect(result.log).toBeGreaterThan(0);
      expect(result.checkpointed).toBe(result.log);
      expect(observer.prepare(`SELECT COUNT(*) AS n FROM "Operator"`).get()).toEqual({ n: 1000 });
    } finally {
      observer.close();
      await db.close();
    }
  });
});

describe.each(databases)("rows written with hand-written SQL on $name", ({ open }) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await open();
  });
  afterEach(() => t.close());

  it("read back through Prisma exactly as Prisma would have written them", async () => {
    const { db } = t;
    const first = await ingestInbound(db, inbound(1));
    const reply = await ingestInbound(
      db,
      inbound(2, { replyTo: { id: "1", fromSelf: false, text: "hello 1" }, quote: "hel" } as Partial<InboundMessage>),
    );
    expect(first).toMatchObject({ status: "stored", answer: true });
    expect(reply).toMatchObject({ status: "stored" });
    if (reply.status !== "stored" || first.status !== "stored") throw new Error("not stored");

    const message = await db.prisma.message.findUniqueOrThrow({ where: { id: reply.messageId }, include: { thread: true } });
    expect(message.sentAt).toEqual(new Date("2026-11-20T10:00:00.250Z"));
    expect(message.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(message.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(message.senderIsBot).toBe(false);
    expect(message.mentionsBot).toBe(false);
    expect(message.replyToSenderIsBot).toBe(false);
    expect(message.replyToMessageId).toBe(first.messageId);
    expect(message.quoteText).toBe("hel");
    expect(message.thread).toMatchObject({ rootMessageId: first.messageId, messageCount: 2 });

    const envelope = await db.prisma.envelope.findUniqueOrThrow({ where: { id: reply.envelopeId } });
    expect(envelope).toMatchObject({ from: "channel:telegram:42", to: "agent:main", status: "pending", doneAt: null, attempts: 0 });
    expect(envelope.metadata).toEqual({ platformMessageId: "2", updateId: "2" });

    const conversation = await db.prisma.conversation.findUniqueOrThrow({ where: { id: reply.conversationId } });
    expect(conversation).toMatchObject({ agentEnabled: true, generation: 1, lastMessageAt: new Date("2026-11-20T10:00:00.250Z") });
    // Prisma's own date filters compare these values correctly (SQLite compares text).
    expect(await db.prisma.message.count({ where: { sentAt: { gte: new Date("2026-11-20T10:00:00.250Z") } } })).toBe(2);
    expect(await db.prisma.message.count({ where: { sentAt: { gt: new Date("2026-11-20T10:00:00.250Z") } } })).toBe(0);
  });

  it("appends outbound messages whatever was written meanwhile, each bumping the history generation", async () => {
    const { db } = t;
    const stored = await ingestInbound(db, inbound(1));
    if (stored.status !== "stored") throw new Error("not stored");
    const base = {
      conversationId: stored.conversationId,
      senderKind: "agent" as const,
      senderName: "main",
      sentAt: new Date(),
      replyTo: null,
      forkId: null,
    };
    // A conversation created by its first message starts at generation 0; each append bumps it.
    await Promise.all([
      appendOutboundMessage(db, { ...base, text: "first", platformMessageId: "100" }),
      appendOutboundMessage(db, { ...base, text: "second", platformMessageId: "101" }),
    ]);
    const texts = (await db.prisma.message.findMany({ where: { direction: "outbound" }, orderBy: { id: "asc" } })).map((m) => m.text);
    expect(texts.sort()).toEqual(["first", "second"]);
    expect((await db.prisma.conversation.findUniqueOrThrow({ where: { id: stored.conversationId } })).generation).toBe(2);
  });

  it("reads a turn's envelope, message and conversation in one go exactly as the separate reads return them", async () => {
    const { db } = t;
    const stored = await ingestInbound(
      db,
      inbound(1, {
        message: {
          id: "1",
          text: "look",
          sentAt: new Date("2026-11-20T10:00:00.250Z"),
          shared: { type: "location", latitude: 1.5, longitude: 2 },
        },
      } as Partial<InboundMessage>),
    );
    if (stored.status !== "stored" || stored.envelopeId === null) throw new Error("not stored");
    await db.prisma.conversation.update({
      where: { id: stored.conversationId },
      data: { snoozedUntil: new Date("2026-12-01T08:00:00.000Z") },
    });
    const both = await findEnvelopeWithMessage(db, stored.envelopeId);
    const envelope = await findEnvelope(db, stored.envelopeId);
    expect(both.envelope).toEqual(envelope);
    expect(both.message).toEqual(await findMessage(db, stored.messageId));
    expect(both.message?.conversation.snoozedUntil).toEqual(new Date("2026-12-01T08:00:00.000Z"));
    expect(both.message?.conversation.waitingSince).toBeInstanceOf(Date);
    expect(both.message?.sentAt).toEqual(new Date("2026-11-20T10:00:00.250Z"));
    expect(both.message?.shared).toEqual({ type: "location", latitude: 1.5, longitude: 2 });
    expect(both.envelope?.metadata).toEqual({ platformMessageId: "1", updateId: "1" });

    // An envelope without a message (a background task), and none at all.
    const task = await db.prisma.envelope.create({
      data: { from: "operator:1", to: "agent:main", status: "pending", text: "x", metadata: {} },
    });
    expect(await findEnvelopeWithMessage(db, task.id)).toEqual({ envelope: await findEnvelope(db, task.id), message: null });
    expect(await findEnvelopeWithMessage(db, task.id + 1000)).toEqual({ envelope: null, message: null });
  });

  it("writes an answer into a thread while a webhook replying into the same thread holds its transaction, without a deadlock", async () => {
    const { db } = t;
    const stored = await ingestInbound(db, inbound(1));
    if (stored.status !== "stored") throw new Error("not stored");
    const base = { conversationId: stored.conversationId, senderKind: "agent" as const, senderName: "main", forkId: null };
    const first = await appendOutboundMessage(db, {
      ...base,
      text: "first",
      platformMessageId: "100",
      sentAt: new Date(),
      replyTo: { id: stored.messageId, threadId: null, platformMessageId: "1" },
    });
    const { threadId } = await db.prisma.message.findUniqueOrThrow({ where: { id: first.id } });
    let answer: Promise<{ id: number }> | undefined;
    // Ingest's order: the conversation's row first, then the thread. The answer starts in between.
    await db.transaction(async (sql) => {
      const conversation = await recordUpdateAndConversation(
        sql,
        { channel: "telegram", updateId: "2", receivedAt: new Date() },
        { id: "42", type: "private" },
        new Date(),
        true,
      );
      answer = appendOutboundMessage(db, {
        ...base,
        text: "second",
        platformMessageId: "101",
        sentAt: new Date(),
        replyTo: { id: stored.messageId, threadId, platformMessageId: "1" },
      });
      await sleep(300);
      await joinThread(sql, conversation.id, { id: stored.messageId, threadId }, new Date());
    });
    await answer;
    expect(await db.prisma.thread.findUniqueOrThrow({ where: { id: threadId! } })).toMatchObject({ messageCount: 4 });
    expect(await db.prisma.message.count({ where: { threadId } })).toBe(3);
  });

  it("joins the thread a reply created while the answer was on its way, instead of losing the answer on the thread's unique root", async () => {
    const { db } = t;
    const stored = await ingestInbound(db, inbound(1));
    if (stored.status !== "stored") throw new Error("not stored");
    // Read when the turn began: no thread yet. Then someone replies to the same message.
    const replyTo = { id: stored.messageId, threadId: null, platformMessageId: "1" };
    const reply = await ingestInbound(db, inbound(2, { replyTo: { id: "1", fromSelf: false } }));
    if (reply.status !== "stored") throw new Error("not stored");
    const { threadId } = await db.prisma.message.findUniqueOrThrow({ where: { id: reply.messageId } });
    expect(threadId).not.toBeNull();
    const answer = await appendOutboundMessage(db, {
      conversationId: stored.conversationId,
      senderKind: "agent",
      senderName: "main",
      text: "answer",
      platformMessageId: "100",
      sentAt: new Date(),
      replyTo,
      forkId: null,
    });
    expect((await db.prisma.message.findUniqueOrThrow({ where: { id: answer.id } })).threadId).toBe(threadId);
    expect(await db.prisma.thread.findUniqueOrThrow({ where: { id: threadId! } })).toMatchObject({
      rootMessageId: stored.messageId,
      messageCount: 3,
    });
  });

  it("puts an answer in its target's thread: created at the first answer, counted on the next, and the user's wait ends unless the send keeps it", async () => {
    const { db } = t;
    const stored = await ingestInbound(db, inbound(1));
    if (stored.status !== "stored") throw new Error("not stored");
    const target = () => db.prisma.message.findUniqueOrThrow({ where: { id: stored.messageId } });
    const waiting = async () => (await db.prisma.conversation.findUniqueOrThrow({ where: { id: stored.conversationId } })).waitingSince;
    const base = { conversationId: stored.conversationId, senderKind: "agent" as const, senderName: "main", forkId: null };
    expect(await waiting()).not.toBeNull();

    const sentAt = new Date("2026-11-20T10:00:05.000Z");
    const notice = await appendOutboundMessage(db, {
      ...base,
      text: "a person will reply",
      platformMessageId: "100",
      sentAt,
      replyTo: { id: stored.messageId, threadId: null, platformMessageId: "1" },
      keepsWaiting: true,
    });
    const rooted = await target();
    expect(rooted.threadId).not.toBeNull();
    const thread = await db.prisma.thread.findUniqueOrThrow({ where: { id: rooted.threadId! } });
    expect(thread).toMatchObject({
      conversationId: stored.conversationId,
      rootMessageId: stored.messageId,
      messageCount: 2,
      lastMessageAt: sentAt,
    });
    expect(await db.prisma.message.findUniqueOrThrow({ where: { id: notice.id } })).toMatchObject({
      threadId: thread.id,
      replyToMessageId: stored.messageId,
      replyToPlatformId: "1",
      direction: "outbound",
      senderIsBot: true,
      sentAt,
    });
    expect(await waiting()).not.toBeNull();

    const later = new Date("2026-11-20T10:00:09.000Z");
    const send = await db.prisma.envelope.create({
      data: {
        from: "agent:main",
        to: "channel:telegram:42",
        status: "processing",
        text: "here you are",
        claimedBy: "w1",
        metadata: { inReplyToMessageId: 1 },
      },
    });
    const answer = await appendOutboundMessage(
      db,
      {
        ...base,
        text: "here you are",
        platformMessageId: "101",
        sentAt: later,
        replyTo: { id: stored.messageId, threadId: rooted.threadId, platformMessageId: "1" },
      },
      { envelopeId: send.id, metadata: { platformMessageId: "101" } },
    );
    // The send's envelope ended with it, in the same write.
    expect(await db.prisma.envelope.findUniqueOrThrow({ where: { id: send.id } })).toMatchObject({
      status: "done",
      messageId: answer.id,
      claimedBy: null,
      metadata: { inReplyToMessageId: 1, platformMessageId: "101" },
    });
    expect(await db.prisma.thread.count()).toBe(1);
    expect(await db.prisma.thread.findUniqueOrThrow({ where: { id: thread.id } })).toMatchObject({ messageCount: 3, lastMessageAt: later });
    expect((await db.prisma.message.findUniqueOrThrow({ where: { id: answer.id } })).threadId).toBe(thread.id);
    expect(await waiting()).toBeNull();
    const conversation = await db.prisma.conversation.findUniqueOrThrow({ where: { id: stored.conversationId } });
    expect(conversation).toMatchObject({ generation: 2, lastMessageAt: later });

    // Not a reply: no thread at all.
    const plain = await appendOutboundMessage(db, { ...base, text: "news", platformMessageId: "102", sentAt: later, replyTo: null });
    expect((await db.prisma.message.findUniqueOrThrow({ where: { id: plain.id } })).threadId).toBeNull();
    expect(await db.prisma.thread.count()).toBe(1);
  });
});
