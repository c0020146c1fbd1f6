import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/lib/db/database";
import { update } from "../fixtures/telegram";
import { startTestApp } from "../helpers/app";
import { POSTGRES_SKIP_REASON, hasPostgres, postgresTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

const MESSAGES = 1000;
const inFlight = new Map<string, number>();
let maxInFlight = 0;
const CHATS = 50;

/**
 * Two app instances (separate clients and connection pools, separate workers) on
 * one PostgreSQL database, updates spread over both webhooks: every message is
 * answered exactly once (a burst once), within a conversation in order, and
 * claims never collide (each instance skips conversations the other is claiming).
 */
describe.skipIf(!hasPostgres)(`two instances on one PostgreSQL${hasPostgres ? "" : ` (${POSTGRES_SKIP_REASON})`}`, () => {
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let first: TestDb;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    // Model latency, so several messages of one conversation wait at once; and a
    // record of how many turns of one conversation were ever in flight together.
    llm = await startFakeLlm((req) => {
      const last = String(req.messages.at(-1)?.content);
      const chat = /from (U\d+)/.exec(last)?.[1] ?? "?";
      inFlight.set(chat, (inFlight.get(chat) ?? 0) + 1);
      maxInFlight = Math.max(maxInFlight, inFlight.get(chat)!);
      setTimeout(() => inFlight.set(chat, inFlight.get(chat)! - 1), 20);
      return { reply: `re: ${last.split("\n").pop()}`, delayMs: 20 };
    });
    first = await postgresTestDb();
  });
  afterAll(async () => {
    await telegram.close();
    await llm.close();
    await first.close();
  });

  it(`${MESSAGES} messages over ${CHATS} conversations: each answered once (bursts once), in order, nothing processed twice`, async () => {
    const second = { ...first, db: await openDb(first.url), close: async () => {} };
    const a = await startTestApp({ db: first, telegram, llm });
    const b = await startTestApp({ db: second, telegram, llm });
    try {
      const posts = [];
      for (let i = 1; i <= MESSAGES; i++) {
        const chat = { id: 8000 + (i % CHATS), type: "private" as const };
        const body = update({ updateId: i, messageId: i, chat, from: { id: chat.id, first_name: `U${chat.id}` }, text: `m${i}` });
        posts.push((i % 2 ? a : b).post(body));
        if (i % 100 === 0) await Promise.all(posts.splice(0));
      }
      await Promise.all(posts);
      await Promise.all([a.settle(), b.settle()]);
      await Promise.all([a.settle(), b.settle()]);

      // Every message is in exactly one answered turn (messages pending together are one
      // burst with one answer), no message is answered twice, and no turn ran twice.
      const sends = telegram.sends();
      const answered = sends.map((s) => s.body.reply_parameters.message_id as number);
      expect(new Set(answered).size).toBe(answered.length);
      const inbound = await first.db.prisma.envelope.findMany({
        where: { to: "agent:main" },
        orderBy: { id: "asc" },
        select: { id: true, from: true, status: true, attempts: true, metadata: true },
      });
      expect(inbound).toHaveLength(MESSAGES);
      // (On a loaded machine a model call can hit the test's 5 s timeout: that turn is retried, so attempts may exceed 1.)
      const notOnce = inbound.filter((e) => !(e.status === "done" && (e.metadata as { replied?: boolean }).replied === true));
      expect(notOnce.map((e) => ({ id: e.id, status: e.status, attempts: e.attempts, metadata: e.metadata }))).toEqual([]);
      const turnOf = (e: (typeof inbound)[number]) => (e.metadata as { turnEnvelopeId?: number }).turnEnvelopeId ?? e.id;
      const turnIds = new Set(inbound.map(turnOf));
      expect(
        [...turnIds].filter((id) => !inbound.some((e) => e.id === id && (e.metadata as { answerEnvelopeId?: number }).answerEnvelopeId)),
        "turns without an answer",
      ).toEqual([]);
      expect(turnIds.size).toBe(answered.length);
      expect(await first.db.prisma.turn.count()).toBe(answered.length);
      // Per conversation, turns went out in the order the messages were stored, each
      // covering a consecutive run of them, answered as a reply to the run's latest.
      for (let c = 0; c < CHATS; c++) {
        const chat = `channel:telegram:${8000 + c}`;
        const mine = inbound.filter((e) => e.from === chat);
        const latest = mine
          .filter((e) => turnOf(e) === e.id)
          .map((e) => Number((e.metadata as { platformMessageId: string }).platformMessageId));
        const answers = sends.filter((s) => Number(s.body.chat_id) === 8000 + c).map((s) => s.body.reply_parameters.message_id as number);
        expect(answers, chat).toEqual(latest);
        const turns = mine.map(turnOf);
        expect(turns, chat).toEqual([...turns].sort((x, y) => x - y));
      }
      // Never two turns of one conversation at the same time, across both instances.
      expect(maxInFlight).toBe(1);
    } finally {
      await a.stop();
      await b.stop();
      await second.db.close();
    }
  }, 180_000);
});
