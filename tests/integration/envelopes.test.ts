import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/auth/operators";
import { envelopeChainByPointers, envelopeThread } from "@/lib/db/envelope-threads";
import { createEnvelope, findEnvelope } from "@/lib/db/envelopes";
import { AppError } from "@/lib/errors";
import {
  listEnvelopesSchema,
  queryEnvelopes,
  receiveAgentMail,
  receiveMailSchema,
  sendEnvelope,
  sendEnvelopeSchema,
} from "@/lib/pipeline/envelopes";
import { updateSettings } from "@/lib/settings/store";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

const api: Caller = { operator: { id: 0, name: "api" }, role: "admin", via: "token" };
const alice: Caller = { operator: { id: 1, name: "alice" }, role: "agent", via: "session" };
const chat = "channel:telegram:4242";

describe.each(databases)("envelopes on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;

  beforeAll(async () => {
    telegram = await startFakeTelegram();
  });
  afterAll(() => telegram.close());
  beforeEach(async () => {
    telegram.calls.length = 0;
    testDb = await open();
    t = await startTestApp({ db: testDb, telegram, model: null });
    await t.post(update({ messageId: 1, text: "hello" })); // creates the conversation for chat 4242
    await t.settle();
  });
  afterEach(async () => {
    await t.stop();
    await testDb.close();
  });

  it("channel mail is delivered now: pending → done, with the platform id in metadata", async () => {
    const e = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "news!" }, api);
    expect(e.status).toBe("pending");
    t.app.worker.kick();
    await t.settle();
    const done = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: e.id } });
    expect(done.status).toBe("done");
    expect((done.metadata as Record<string, unknown>).platformMessageId).toMatch(/^\d+$/);
    expect(telegram.sends().map((c) => c.body.text)).toEqual(["news!"]);
  });

  it("a caller's metadata is kept under metadata.client: it cannot set a control flag or a reply token", async () => {
    const forged = {
      forkConflict: true,
      platform: { replyToken: "forged-token", receivedAt: Date.now() },
      outcome: "not_sent",
      replied: true,
      note: "mine",
    };
    const e = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "news!", metadata: forged }, api);
    expect(e.metadata).toEqual({ client: forged, sentBy: "api" });
    const read = (await findEnvelope(t.db, e.id))!;
    expect(read.metadata).toMatchObject({ client: forged, sentBy: "api" });
    for (const flag of ["forkConflict", "platform", "outcome", "replied"] as const) expect(read.metadata[flag]).toBeUndefined();
    t.app.worker.kick();
    await t.settle();
    // Delivered as any mail (a forged reply token would have gone to the adapter as `platform`).
    expect(await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: e.id } })).toMatchObject({ status: "done" });
    expect(telegram.sends().map((c) => c.body.text)).toEqual(["news!"]);
  });

  it("reads a chat turn's envelope written by an older version: unknown keys and wrong types do not crash it or act as flags", async () => {
    const message = await t.db.prisma.message.findFirstOrThrow();
    const old = await t.db.prisma.envelope.create({
      data: {
        from: chat,
        to: "agent:main",
        text: "hello again",
        conversationId: message.conversationId,
        messageId: message.id,
        metadata: {
          lastDeliveryError: "an old copy",
          forkConflict: "yes",
          retiredKey: { nested: [1, 2] },
          platform: "not an object",
          updateId: "9",
        },
      },
    });
    expect((await findEnvelope(t.db, old.id))!.metadata).toEqual({ updateId: "9" });
    t.app.worker.kick();
    await t.settle();
    // Not taken for a fork conflict (no notice sent): the turn ran as usual (no model here: skipped).
    const after = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: old.id } });
    expect(after.status).toBe("done");
    expect(after.metadata).toMatchObject({ skipped: "no model configured" });
    expect(telegram.sends()).toHaveLength(0);
  });

  it("a failed channel send is terminal and recorded once, in lastDeliveryError", async () => {
    telegram.failNext({ status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was kicked" } });
    const e = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "hi" }, api);
    t.app.worker.kick();
    await t.settle();
    const failed = await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: e.id } });
    expect(failed.status).toBe("failed");
    expect(failed.lastDeliveryError).toBe("Telegram 403: Forbidden: bot was kicked");
    expect(failed.metadata).not.toHaveProperty("lastDeliveryError");
    expect(failed.metadata).toMatchObject({ outcome: "not_sent" });
    expect(telegram.sends()).toHaveLength(1);
  });

  it("a reply to a channel envelope is sent as a native reply to its message", async () => {
    const inbound = await t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "answer", replyTo: inbound.id }, api);
    t.app.worker.kick();
    await t.settle();
    expect(telegram.sends()[0].body.reply_parameters).toEqual({ message_id: 1, allow_sending_without_reply: true });
  });

  it("deliverAt in the future waits; in the past goes at once; relative forms work", async () => {
    const past = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "past", deliverAt: "2020-01-01T00:00:00Z" }, api);
    const later = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "later", deliverAt: "+2h" }, api);
    expect(later.deliverAt!.getTime() - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    t.app.worker.kick();
    await t.settle();
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: past.id } })).status).toBe("done");
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: later.id } })).status).toBe("pending");
    expect(telegram.sends().map((c) => c.body.text)).toEqual(["past"]);
  });

  it("a scheduled envelope fires at its time without polling, and survives a restart", async () => {
    const soon = await sendEnvelope(t.db, { from: "agent:main", to: chat, text: "in a moment", deliverAt: "+1s" }, api);
    t.app.worker.kick();
    await t.stop(); // the process "restarts" before it is due
    const restarted = await startTestApp({ db: testDb, telegram, model: null });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_400));
      await restarted.settle();
      expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: soon.id } })).status).toBe("done");
      expect(telegram.sends().map((c) => c.body.text)).toEqual(["in a moment"]);
    } finally {
      await restarted.stop();
    }
  });

  it("an agent not bound to the adapter is refused, and nothing is stored", async () => {
    await updateSettings(t.db, { agentBindings: { main: ["line"] } }, "test");
    const before = await t.db.prisma.envelope.count();
    await expect(sendEnvelope(t.db, { from: "agent:main", to: chat, text: "x" }, api)).rejects.toMatchObject({ code: "forbidden" });
    await expect(sendEnvelope(t.db, { from: "agent:other", to: chat, text: "x" }, api)).rejects.toMatchObject({ code: "forbidden" });
    expect(await t.db.prisma.envelope.count()).toBe(before);
  });

  it("refuses bad addresses, unknown chats and reply targets, and impersonation by a session", async () => {
    await expect(sendEnvelope(t.db, { from: "bot", to: chat, text: "x" }, api)).rejects.toThrow(/invalid address/);
    await expect(sendEnvelope(t.db, { from: "agent:main", to: "channel:telegram:999", text: "x" }, api)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(sendEnvelope(t.db, { from: "agent:main", to: chat, text: "x", replyTo: 99999 }, api)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(sendEnvelope(t.db, { from: "agent:main", to: chat, text: "x" }, alice)).rejects.toBeInstanceOf(AppError);
    await expect(sendEnvelope(t.db, { from: "agent:main", to: chat, text: "x", deliverAt: "soon" }, api)).rejects.toThrow(/deliverAt/);
    const ok = await sendEnvelope(t.db, { from: "operator:alice", to: chat, text: "x" }, alice);
    expect(ok.from).toBe("operator:alice");
  });

  it("listing agent mail changes nothing; receiving it (POST) acknowledges it at most once", async () => {
    const a = await sendEnvelope(t.db, { from: "agent:main", to: "agent:helper", text: "task 1" }, api);
    await sendEnvelope(t.db, { from: "agent:main", to: "agent:helper", text: "task 2", deliverAt: "+1h" }, api);
    // A GET (what a cross-site link can trigger) leaves the mail pending.
    const listed = await queryEnvelopes(t.db, { to: "agent:helper", status: "pending", take: 50, scheduled: false });
    expect(listed.envelopes.map((e) => e.text).sort()).toEqual(["task 1", "task 2"]);
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("pending");
    const first = await receiveAgentMail(t.db, receiveMailSchema.parse({ to: "agent:helper" }));
    expect(first.envelopes.map((e) => e.text)).toEqual(["task 1"]);
    expect((await t.db.prisma.envelope.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("done");
    expect((await receiveAgentMail(t.db, receiveMailSchema.parse({ to: "agent:helper" }))).envelopes).toEqual([]);
    expect(receiveMailSchema.safeParse({ to: "channel:telegram:1" }).success).toBe(false);
    const all = await queryEnvelopes(t.db, { to: "agent:helper", take: 50, scheduled: false });
    expect(all.envelopes.map((e) => e.status).sort()).toEqual(["done", "pending"]);
  });

  it("receiving mail never takes the worker's turns to the same address (a user's message, a background task)", async () => {
    const conversation = await t.db.prisma.conversation.findFirstOrThrow();
    const message = await t.db.prisma.message.findFirstOrThrow({ where: { conversationId: conversation.id } });
    const fork = await t.db.prisma.fork.create({ data: { conversationId: conversation.id, kind: "background", status: "running" } });
    const turn = await createEnvelope(t.db, {
      from: chat,
      to: "agent:main",
      text: "hello",
      conversationId: conversation.id,
      messageId: message.id,
    });
    const task = await createEnvelope(t.db, {
      from: "operator:alice",
      to: "agent:main",
      text: "look it up",
      conversationId: conversation.id,
      forkId: fork.id,
    });
    const mail = await createEnvelope(t.db, { from: "agent:helper", to: "agent:main", text: "for a reader" });
    const taken = await receiveAgentMail(t.db, receiveMailSchema.parse({ to: "agent:main" }));
    expect(taken.envelopes.map((e) => e.id)).toEqual([mail.id]);
    for (const id of [turn.id, task.id]) expect((await findEnvelope(t.db, id))?.status).not.toBe("done");
  });

  it.each([1, 50, 5000])(
    "returns a thread of depth %i: chain to the root and the tree below it, in one query",
    async (depth) => {
      // A chain of `depth` envelopes plus a side branch under the root.
      // Explicit ids far above the sequence, so one createMany builds the chain.
      const base = 1_000_000;
      await t.db.prisma.envelope.createMany({
        data: Array.from({ length: depth }, (_, i) => ({
          id: base + i,
          from: "agent:a",
          to: "agent:b",
          text: i === 0 ? "root" : `hop ${i}`,
          metadata: {},
          replyToEnvelopeId: i === 0 ? null : base + i - 1,
          threadRootId: i === 0 ? null : base,
        })),
      });
      const root = { id: base };
      const last = base + depth - 1;
      const side = await createEnvelope(t.db, { from: "agent:b", to: "agent:a", text: "side", replyToEnvelopeId: root.id });
      const thread = (await envelopeThread(t.db, last))!;
      expect(thread.root).toBe(root.id);
      expect(thread.chain).toHaveLength(depth);
      expect(thread.chain[0].id).toBe(root.id);
      expect(thread.chain.at(-1)!.id).toBe(last);
      expect(thread.chain.every((e, i) => i === 0 || e.replyToEnvelopeId === thread.chain[i - 1].id)).toBe(true);
      expect(thread.tree).toHaveLength(depth + 1);
      expect(thread.tree.map((e) => e.id)).toContain(side.id);
      expect(thread.tree[0]).toMatchObject({ id: root.id, depth: 0, text: "root", status: "pending" });
      expect(thread.tree[0].createdAt).toBeInstanceOf(Date);
      if (depth <= 50) expect((await envelopeChainByPointers(t.db, last)).map((e) => e.id)).toEqual(thread.chain.map((e) => e.id));
    },
    120_000,
  );

  it("lists past 100 rows page by page with nextBefore, and filters by conversation", async () => {
    const conversation = await t.db.prisma.conversation.findFirstOrThrow();
    await t.db.prisma.envelope.createMany({
      data: Array.from({ length: 230 }, (_, i) => ({ from: "agent:a", to: "agent:b", text: `page ${i}`, metadata: {} })),
    });
    const seen: number[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await queryEnvelopes(t.db, { to: "agent:b", take: 100, scheduled: false, before });
      seen.push(...page.envelopes.map((e) => e.id));
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    expect(seen).toHaveLength(230);
    expect(new Set(seen).size).toBe(230);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    const inChat = await queryEnvelopes(t.db, { conversation: conversation.id, take: 100, scheduled: false });
    expect(inChat.envelopes.length).toBeGreaterThan(0);
    expect(inChat.envelopes.every((e) => e.conversationId === conversation.id)).toBe(true);
    expect(inChat.nextBefore).toBeNull();
    expect((await queryEnvelopes(t.db, { conversation: conversation.id + 1000, take: 100, scheduled: false })).envelopes).toEqual([]);
  });

  it("the list query reads ?conversation= as a number and refuses anything else", () => {
    expect(listEnvelopesSchema.parse({ conversation: "7", before: "120" })).toMatchObject({ conversation: 7, before: 120, take: 100 });
    expect(listEnvelopesSchema.safeParse({ conversation: "abc" }).success).toBe(false);
  });

  it("the send schema (API, CLI and the dashboard's form) refuses a bad address or deliverAt at the field, and sendEnvelope stores nothing", async () => {
    const parsed = sendEnvelopeSchema.safeParse({ from: "agent:main", to: "telegram 42", text: "x", deliverAt: "soon" });
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues;
    expect(issues.map((i) => i.path[0]).sort()).toEqual(["deliverAt", "to"]);
    expect(issues.find((i) => i.path[0] === "to")!.message).toMatch(/invalid address "telegram 42"/);
    expect(sendEnvelopeSchema.safeParse({ from: "operator:alice", to: chat, text: "ok", deliverAt: "+30m", replyTo: 3 }).success).toBe(
      true,
    );
    const count = await t.db.prisma.envelope.count();
    await expect(sendEnvelope(t.db, { from: "agent:main", to: "telegram 42", text: "x" }, api)).rejects.toThrow(/invalid address/);
    expect(await t.db.prisma.envelope.count()).toBe(count);
  });

  it("an unknown envelope has no thread", async () => {
    expect(await envelopeThread(t.db, 123456)).toBeNull();
  });
});
