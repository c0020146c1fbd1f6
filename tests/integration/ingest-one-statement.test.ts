import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUpdate } from "@/lib/channels/telegram/parse";
import { updateSchema } from "@/lib/channels/telegram/schema";
import { lineEventSchema, parseLineEvent } from "@/lib/channels/line/parse";
import type { InboundEvent } from "@/lib/channels/types";
import type { Database } from "@/lib/db/database";
import { ingestEvent } from "@/lib/pipeline/ingest";
import { BOT } from "../fixtures/telegram";
import { dana, lineCases, privateChat, telegramCases } from "../fixtures/platform-updates";
import { hasPostgres, POSTGRES_SKIP_REASON, postgresTestDb, sqliteTestDb, type TestDb } from "../helpers/db";

/**
 * On PostgreSQL an ordinary message is stored in one statement (lib/db/ingest.ts
 * `storeOrdinaryMessage`), everything else in the ingest transaction; SQLite always
 * takes the transaction. Whatever the path, the rows must be the same: every
 * fixture, and chats in every state the one statement must leave to the transaction,
 * go through both databases and what they stored is compared.
 */
if (!hasPostgres) console.warn(`ingest in one statement: ${POSTGRES_SKIP_REASON}`);

describe.skipIf(!hasPostgres)("ingest in one statement on PostgreSQL", () => {
  let sqlite: TestDb;
  let postgres: TestDb;
  let transactions: Record<"sqlite" | "postgresql", number>;
  const counted = (t: TestDb): Database => ({
    ...t.db,
    transaction: (fn) => {
      transactions[t.provider] += 1;
      return t.db.transaction(fn);
    },
  });

  beforeAll(async () => {
    [sqlite, postgres] = await Promise.all([sqliteTestDb(), postgresTestDb()]);
  });
  afterAll(async () => {
    await Promise.all([sqlite?.close(), postgres?.close()]);
  });

  /** One update as the webhook takes it (validated, parsed), into both databases. */
  async function ingestBoth(update: Record<string, unknown>) {
    const parsed = updateSchema.safeParse(update);
    return parsed.success ? ingestEventBoth(parseUpdate(parsed.data as never, BOT)) : [undefined, undefined];
  }

  /** One LINE event as the webhook takes it, into both databases. */
  async function ingestLineBoth(raw: Record<string, unknown>) {
    const parsed = lineEventSchema.safeParse(raw);
    return parsed.success ? ingestEventBoth(parseLineEvent(parsed.data, 1_790_000_000_000)) : [undefined, undefined];
  }

  async function ingestEventBoth(event: InboundEvent) {
    if (event.type === "ignored") return [undefined, undefined];
    return Promise.all([sqlite, postgres].map((t) => ingestEvent(counted(t), structuredClone(event), { modelConfigured: true })));
  }

  // Ids are not compared: PostgreSQL's sequences skip a value on every upsert of an existing row.
  const withoutIds = (result: object | undefined) =>
    result && Object.fromEntries(Object.entries(result).filter(([key]) => !key.endsWith("Id")));

  /** What ingest stored, without ids and clock times (the two databases differ there, and nothing else may). */
  async function stored(db: Database) {
    const conversations = await db.prisma.conversation.findMany({ orderBy: [{ channel: "asc" }, { platformChatId: "asc" }] });
    const chatOf = new Map(conversations.map((c) => [c.id, c.platformChatId]));
    const messages = await db.prisma.message.findMany({ include: { envelopes: true, attachments: true, replyTo: true } });
    return {
      updates: (await db.prisma.inboundUpdate.findMany()).map((u) => `${u.channel}:${u.updateId}`).sort(),
      conversations: conversations.map(
        ({ id, botId, createdAt, updatedAt, statusChangedAt, parentConversationId, activeForkId, ...c }) => ({
          ...c,
          parent: parentConversationId === null ? null : chatOf.get(parentConversationId),
          activeFork: activeForkId !== null,
        }),
      ),
      messages: messages
        .map(({ id, conversationId, createdAt, replyToMessageId, threadId, forkId, envelopes, attachments, replyTo, ...m }) => ({
          ...m,
          chat: chatOf.get(conversationId),
          replyTo: replyTo?.platformMessageId ?? null,
          threaded: threadId !== null,
          inFork: forkId !== null,
          envelopes: envelopes.map(({ from, to, status, text, metadata, doneAt, forkId: envelopeFork }) => ({
            from,
            to,
            status,
            text,
            metadata,
            done: doneAt !== null,
            inFork: envelopeFork !== null,
          })),
          attachments: attachments.map(({ kind, status, sourceRef, sizeBytes }) => ({ kind, status, sourceRef, sizeBytes })),
        }))
        .sort((a, b) => `${a.chat}/${a.platformMessageId}`.localeCompare(`${b.chat}/${b.platformMessageId}`)),
    };
  }

  it("stores every Telegram and LINE fixture (each kind of message, chat, reply, edit, event) exactly as the transaction does", async () => {
    transactions = { sqlite: 0, postgresql: 0 };
    let storedMessages = 0;
    for (const c of telegramCases) {
      const [a, b] = await ingestBoth(c.update);
      expect(withoutIds(b), c.name).toEqual(withoutIds(a));
      if (a && a.status === "stored") storedMessages += 1;
    }
    for (const c of lineCases) {
      const [a, b] = await ingestLineBoth(c.event);
      expect(withoutIds(b), c.name).toEqual(withoutIds(a));
    }
    expect(await stored(postgres.db)).toEqual(await stored(sqlite.db));
    // Ordinary messages took the one statement: fewer transactions on PostgreSQL, and some at all.
    expect(storedMessages).toBeGreaterThan(10);
    expect(transactions.postgresql).toBeLessThan(transactions.sqlite - 5);
  });

  it("leaves a snoozed, resolved, agent-off, blocked or forked chat to the transaction, which decides as before", async () => {
    let messageId = 7_000;
    let updateId = 990_000;
    const states = {
      snoozed: { status: "snoozed", snoozedUntil: new Date("2030-01-01T00:00:00Z") },
      resolved: { status: "resolved" },
      agentOff: { agentEnabled: false },
      blocked: { membership: "kicked", membershipChangedAt: new Date("2020-01-01T00:00:00Z") },
      forked: {},
      open: {},
    } as const;
    for (const [i, [state, data]] of Object.entries(states).entries()) {
      const chat = { ...privateChat, id: 6_200_000 + i };
      const from = { ...dana, id: chat.id };
      const update = (text: string) => ({
        update_id: ++updateId,
        message: { message_id: ++messageId, date: 1_790_000_000 + messageId, chat, from, text },
      });
      // First sight: a new conversation, stored in one statement on PostgreSQL.
      await ingestBoth(update(`hello from ${state}`));
      for (const t of [sqlite, postgres]) {
        const conversation = await t.db.prisma.conversation.update({
          where: { channel_platformChatId: { channel: "telegram", platformChatId: String(chat.id) } },
          data,
        });
        if (state === "forked") {
          const fork = await t.db.prisma.fork.create({ data: { conversationId: conversation.id, kind: "interactive", status: "active" } });
          await t.db.prisma.conversation.update({ where: { id: conversation.id }, data: { activeForkId: fork.id } });
        }
      }
      transactions = { sqlite: 0, postgresql: 0 };
      const [a, b] = await ingestBoth(update(`again from ${state}`));
      expect(withoutIds(b), state).toEqual(withoutIds(a));
      // Anything but an open conversation with the agent on and no fork: the one statement wrote nothing, the transaction stored it.
      expect(transactions.postgresql, state).toBe(state === "open" ? 0 : 1);
    }
    const [onSqlite, onPostgres] = [await stored(sqlite.db), await stored(postgres.db)];
    expect(onPostgres).toEqual(onSqlite);
    const byText = (text: string) => onPostgres.messages.find((m) => m.text === text)!;
    expect(byText("again from agentOff").envelopes[0]).toMatchObject({ status: "done", metadata: { skipped: expect.any(String) } });
    expect(byText("again from forked").inFork).toBe(true);
    expect(byText("again from open").envelopes[0]).toMatchObject({ status: "pending" });
    const conversationOf = (state: string) =>
      onPostgres.conversations.find((c) => c.platformChatId === String(6_200_000 + Object.keys(states).indexOf(state)))!;
    expect(conversationOf("snoozed").status).toBe("open");
    expect(conversationOf("resolved").status).toBe("open");
    expect(conversationOf("blocked").membership).toBeNull();
  });

  it("refuses a repeated update id or platform message id as a duplicate and writes nothing more", async () => {
    const update = { update_id: 995_001, message: { message_id: 8_001, date: 1_790_100_000, chat: privateChat, from: dana, text: "once" } };
    const [first] = await ingestBoth(update);
    expect(first).toMatchObject({ status: "stored" });
    const before = await stored(postgres.db);
    const messageIds = async () =>
      (await postgres.db.read<{ last_value: string }>(`SELECT "last_value" FROM "Message_id_seq"`))[0].last_value;
    const lastMessageId = await messageIds();
    // The same update again, and the same message under a new update id.
    expect(await ingestBoth(update)).toEqual([{ status: "duplicate" }, { status: "duplicate" }]);
    // The repeated update failed before the message's insert took an id from its sequence.
    expect(await messageIds()).toBe(lastMessageId);
    expect(await ingestBoth({ ...update, update_id: 995_002 })).toEqual([{ status: "duplicate" }, { status: "duplicate" }]);
    expect(await stored(postgres.db)).toEqual(before);
    expect(await stored(postgres.db)).toEqual(await stored(sqlite.db));
  });

  it("takes concurrent deliveries: one update ten times at once is stored once, ten messages to a new chat share one conversation", async () => {
    const chat = { ...privateChat, id: 6_300_001 };
    const from = { ...dana, id: chat.id };
    const message = (n: number) => ({ message_id: 9_000 + n, date: 1_790_200_000 + n, chat, from, text: `at once ${n}` });
    const event = (update: Record<string, unknown>) => {
      const parsed = parseUpdate(updateSchema.parse(update) as never, BOT);
      if (parsed.type !== "message") throw new Error(`not a message: ${parsed.type}`);
      return parsed;
    };
    const once = event({ update_id: 996_000, message: message(0) });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => ingestEvent(postgres.db, structuredClone(once), { modelConfigured: true })),
    );
    expect(results.filter((r) => r.status === "stored")).toHaveLength(1);
    expect(results.filter((r) => r.status === "duplicate")).toHaveLength(9);
    const many = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        ingestEvent(postgres.db, event({ update_id: 996_001 + n, message: message(n + 1) }), { modelConfigured: true }),
      ),
    );
    expect(many.every((r) => r.status === "stored")).toBe(true);
    const conversations = await postgres.db.prisma.conversation.findMany({
      where: { platformChatId: String(chat.id) },
      include: { messages: true },
    });
    expect(conversations).toHaveLength(1);
    expect(conversations[0].messages).toHaveLength(11);
    // Every message after the one that created it bumped the history generation: none was lost to a race.
    expect(conversations[0].generation).toBe(10);
  });

  it("dates the message, envelope and update when they are written, not when they queued for a pool connection", async () => {
    // Every connection of the pool held for a second: the message waits for one.
    const held = Date.now();
    const holding = Promise.all(Array.from({ length: 5 }, () => postgres.db.read("SELECT pg_sleep(1)")));
    const chat = { ...privateChat, id: 6_300_002 };
    const parsed = parseUpdate(
      updateSchema.parse({
        update_id: 996_100,
        message: { message_id: 9_100, date: 1_790_200_100, chat, from: { ...dana, id: chat.id }, text: "queued" },
      }) as never,
      BOT,
    );
    if (parsed.type !== "message") throw new Error(`not a message: ${parsed.type}`);
    const [result] = await Promise.all([ingestEvent(postgres.db, parsed, { modelConfigured: true }), holding]);
    expect(result.status).toBe("stored");
    const message = await postgres.db.prisma.message.findFirstOrThrow({
      where: { platformMessageId: "9100", conversation: { platformChatId: String(chat.id) } },
      include: { envelopes: true, conversation: true },
    });
    const update = await postgres.db.prisma.inboundUpdate.findFirstOrThrow({ where: { updateId: "996100" } });
    // The burst debounce counts from the envelope's createdAt: a time from before the wait would make it due at once.
    for (const at of [message.createdAt, message.envelopes[0].createdAt, update.receivedAt, message.conversation.createdAt])
      expect(at.getTime()).toBeGreaterThanOrEqual(held + 900);
  });

  it("applies a LINE unsend delivered at the same moment as its message (found once the message commits)", async () => {
    let notApplied = 0;
    for (let n = 0; n < 50; n++) {
      const chat = { id: `Uunsend${n % 5}`, type: "private" as const };
      const message: Extract<InboundEvent, { type: "message" }> = {
        type: "message",
        message: {
          channel: "line",
          updateId: `unsend-msg-${n}`,
          kind: "new",
          chat,
          message: { id: `unsend-${n}`, text: "oops", sentAt: new Date(1_790_300_000_000 + n) },
          sender: { id: chat.id, name: "D", isBot: false },
          addressesBot: false,
        },
      };
      const unsend: InboundEvent = {
        type: "deleted",
        channel: "line",
        updateId: `unsend-del-${n}`,
        chat,
        messageId: `unsend-${n}`,
        at: new Date(1_790_300_000_500 + n),
      };
      const [, deleted] = await Promise.all([ingestEvent(postgres.db, message), ingestEvent(postgres.db, unsend)]);
      expect(deleted.status).toBe("deleted");
      const row = await postgres.db.prisma.message.findFirst({
        where: { platformMessageId: `unsend-${n}`, conversation: { platformChatId: chat.id } },
      });
      if (!row?.deletedAt) notApplied += 1;
    }
    expect(notApplied).toBe(0);
  });
});
