import { describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { POST as acceptRoute } from "@/app/api/auth/invitation/route";
import { POST as loginRoute } from "@/app/api/auth/login/route";
import { GET as exportRoute } from "@/app/api/v1/conversations/[id]/export/route";
import { GET as timelineRoute, POST as messageRoute } from "@/app/api/v1/conversations/[id]/messages/route";
import { GET as notesRoute, POST as noteRoute } from "@/app/api/v1/conversations/[id]/notes/route";
import {
  GET as conversationRoute,
  PATCH as conversationPatchRoute,
  DELETE as conversationDeleteRoute,
} from "@/app/api/v1/conversations/[id]/route";
import { GET as listRoute } from "@/app/api/v1/conversations/route";
import { GET as conversationsCsvRoute } from "@/app/api/v1/conversations/export/route";
import { GET as datasetsRoute, POST as newDatasetRoute } from "@/app/api/v1/datasets/route";
import { GET as usageRoute } from "@/app/api/v1/usage/route";
import { GET as envelopesRoute, POST as sendRoute } from "@/app/api/v1/envelopes/route";
import { POST as receiveRoute } from "@/app/api/v1/envelopes/receive/route";
import { GET as threadRoute } from "@/app/api/v1/envelopes/[id]/thread/route";
import { GET as eventsRoute } from "@/app/api/v1/events/route";
import { GET as queueRoute } from "@/app/api/v1/queue/route";
import { GET as botsRoute } from "@/app/api/v1/bots/route";
import { GET as envelopeRoute } from "@/app/api/v1/envelopes/[id]/route";
import { GET as settingsRoute } from "@/app/api/v1/settings/route";
import { EventBus, eventBus } from "@/lib/events/bus";
import { eventStreamResponse } from "@/lib/http/event-stream";
import { endEnvelope } from "@/lib/pipeline/end-envelope";
import { inspectTargetOf } from "@/lib/pipeline/inspect-target";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { GET as forksRoute, POST as forkRoute } from "@/app/api/v1/forks/route";
import { GET as handoffsRoute } from "@/app/api/v1/handoffs/route";
import { POST as replyRoute } from "@/app/api/v1/messages/[id]/reply/route";
import { GET as messageThreadRoute } from "@/app/api/v1/messages/[id]/thread/route";
import { DELETE as messageDeleteRoute, PATCH as messageEditRoute } from "@/app/api/v1/messages/[id]/route";
import { POST as regenerateRoute } from "@/app/api/v1/messages/[id]/regenerate/route";
import { GET as turnRoute } from "@/app/api/v1/turns/[id]/route";
import { PATCH as patchOperatorRoute } from "@/app/api/v1/operators/[id]/route";
import { GET as operatorsRoute, POST as inviteRoute } from "@/app/api/v1/operators/route";
import { GET as searchRoute } from "@/app/api/v1/search/route";
import { GET as savedRepliesRoute, POST as newSavedReplyRoute } from "@/app/api/v1/saved-replies/route";
import { operations } from "@/lib/api/operations";
import { hashPassword } from "@/lib/auth/password";
import { createFirstOperator } from "@/lib/db/operators";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";
import { readUntil } from "../helpers/sse";

const TOKEN = "operator-bots-test-token-0123456789";
type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
type Session = { cookie: string; csrf: string };
type Reply = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } }; response: Response };

/** Calls a route as Next does, at its real path (the bot check reads the path). */
async function call(
  handler: unknown,
  path: string,
  options: { method?: string; session?: Session; token?: string; body?: unknown; params?: Record<string, string> } = {},
): Promise<Reply> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { ...(options.body !== undefined ? { "content-type": "application/json" } : {}) };
  if (options.session) {
    headers.cookie = options.session.cookie;
    if (method !== "GET") headers["x-csrf-token"] = options.session.csrf;
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const request = new Request(`http://localhost${path}`, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(options.params ?? {}) });
  const body = response.headers.get("content-type")?.includes("json") ? ((await response.json()) as Reply["body"]) : {};
  return { status: response.status, body, response };
}

function sessionOf(response: Response): Session {
  const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("sb_csrf="))!.slice("sb_csrf=".length);
  return { cookie: cookies.join("; "), csrf };
}

function expectDocumented(method: string, path: string, reply: Reply) {
  const op = operations.find((o) => o.method === method && o.path === path)!;
  expect(reply.status).toBe(op.response.status);
  const parsed = (op.response.schema as z.ZodType).safeParse(reply.body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

describe.each(databases)("operators limited to some bots on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  /** Two bots with one conversation each (a message and a note holding the same word), an admin and an agent. */
  async function seed() {
    const db = app.t.db.prisma;
    const alpha = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-901", name: "Alpha" } });
    const bravo = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-902", name: "Bravo" } });
    const conversation = (bot: { id: number; adapter: string }, chat: string) =>
      db.conversation.create({
        data: {
          channel: bot.adapter,
          botId: bot.id,
          platformChatId: chat,
          type: "private",
          title: `chat ${chat}`,
          lastMessageAt: new Date(),
        },
      });
    const a = await conversation(alpha, "7001");
    const b = await conversation(bravo, "7002");
    const message = (conversationId: number, text: string) =>
      db.message.create({
        data: {
          conversationId,
          direction: "inbound",
          senderKind: "user",
          senderName: "Una",
          text,
          sentAt: new Date(),
          platformMessageId: String(conversationId),
        },
      });
    const messageA = await message(a.id, "quetzalfig alpha question");
    const messageB = await message(b.id, "quetzalfig bravo question");
    await db.conversation.update({ where: { id: b.id }, data: { handoffState: "waiting", handoffRequestedAt: new Date() } });

    await createFirstOperator(app.t.db, { name: "root", passwordHash: await hashPassword("root-password-123") });
    const login = await call(loginRoute, "/api/auth/login", { method: "POST", body: { name: "root", password: "root-password-123" } });
    const admin = sessionOf(login.response);
    const invited = await call(inviteRoute, "/api/v1/operators", { method: "POST", session: admin, body: { role: "agent" } });
    const accepted = await call(acceptRoute, "/api/auth/invitation", {
      method: "POST",
      body: { token: invited.body.token, name: "bob", password: "bob-password-12" },
    });
    expect(accepted.status).toBe(201);
    const agent = { session: sessionOf(accepted.response), id: (accepted.body.operator as { id: number }).id };
    const adminId = (await db.operator.findUniqueOrThrow({ where: { name: "root" } })).id;
    await db.conversationNote.create({
      data: { conversationId: b.id, operatorId: adminId, operatorName: "root", text: "quetzalfig bravo note" },
    });
    return { alpha, bravo, a, b, messageA, messageB, admin, adminId, agent };
  }

  /** An agent turn in a conversation (its envelope done), costing `costUsd`. */
  async function turnIn(conversationId: number, costUsd = 0.25) {
    const db = app.t.db.prisma;
    const envelope = await db.envelope.create({
      data: { from: "channel:x", to: "agent:main", text: "x", status: "done", conversationId, metadata: {} },
    });
    return db.turn.create({
      data: {
        envelopeId: envelope.id,
        conversationId,
        model: "openai:gpt-4o",
        system: "",
        prompt: [],
        toolCalls: [],
        usage: {},
        inputTokens: 100,
        outputTokens: 10,
        costUsd,
      },
    });
  }

  const limit = (who: Session | string, id: number, botIds: number[] | null) =>
    call(patchOperatorRoute, `/api/v1/operators/${id}`, {
      method: "PATCH",
      ...(typeof who === "string" ? { token: who } : { session: who }),
      body: { botIds },
      params: { id: String(id) },
    });
  const listIds = async (session: Session) => {
    const reply = await call(listRoute, "/api/v1/conversations", { session });
    expect(reply.status).toBe(200);
    return {
      ids: (reply.body.conversations as { id: number }[]).map((c) => c.id).sort(),
      counts: reply.body.counts as Record<string, number>,
    };
  };

  it("an agent limited to one bot sees and acts only on its conversations, from their next request on", async () => {
    const s = await seed();
    const bob = s.agent.session;
    expect((await listIds(bob)).ids).toEqual([s.a.id, s.b.id].sort());

    const limited = await limit(s.admin, s.agent.id, [s.alpha.id]);
    expectDocumented("patch", "/operators/{id}", limited);
    expect((limited.body.operator as { botIds: number[] }).botIds).toEqual([s.alpha.id]);
    const team = await call(operatorsRoute, "/api/v1/operators", { session: s.admin });
    expect((team.body.operators as { name: string; botIds: unknown }[]).map((o) => [o.name, o.botIds])).toEqual([
      ["root", null],
      ["bob", [s.alpha.id]],
    ]);

    // The same session, no new sign-in: the limit applies at once.
    const { ids, counts } = await listIds(bob);
    expect(ids).toEqual([s.a.id]);
    expect(counts.all).toBe(1);
    expect(counts.handoff).toBe(0);
    expect(
      (await call(conversationRoute, `/api/v1/conversations/${s.a.id}`, { session: bob, params: { id: String(s.a.id) } })).status,
    ).toBe(200);

    // Another bot's conversation answers exactly as an unknown one.
    const unknown = await call(conversationRoute, "/api/v1/conversations/99999", { session: bob, params: { id: "99999" } });
    const other = await call(conversationRoute, `/api/v1/conversations/${s.b.id}`, { session: bob, params: { id: String(s.b.id) } });
    expect(unknown.status).toBe(404);
    expect(other.status).toBe(404);
    expect(other.body).toEqual(unknown.body);

    const db = app.t.db.prisma;
    const at = (suffix = "") => `/api/v1/conversations/${s.b.id}${suffix}`;
    const params = { id: String(s.b.id) };
    const refused = [
      await call(timelineRoute, at("/messages"), { session: bob, params }),
      await call(messageRoute, at("/messages"), { method: "POST", session: bob, params, body: { text: "hello from bob" } }),
      await call(notesRoute, at("/notes"), { session: bob, params }),
      await call(noteRoute, at("/notes"), { method: "POST", session: bob, params, body: { text: "bob's note" } }),
      await call(conversationPatchRoute, at(), { method: "PATCH", session: bob, params, body: { status: "resolved" } }),
      await call(exportRoute, at("/export"), { session: bob, params }),
      await call(replyRoute, `/api/v1/messages/${s.messageB.id}/reply`, {
        method: "POST",
        session: bob,
        params: { id: String(s.messageB.id) },
        body: { text: "a reply from bob" },
      }),
      await call(forkRoute, "/api/v1/forks", { method: "POST", session: bob, body: { conversationId: s.b.id, task: "look this up" } }),
      await call(messageEditRoute, `/api/v1/messages/${s.messageB.id}`, {
        method: "PATCH",
        session: bob,
        params: { id: String(s.messageB.id) },
        body: { text: "bob's edit" },
      }),
      await call(messageDeleteRoute, `/api/v1/messages/${s.messageB.id}`, {
        method: "DELETE",
        session: bob,
        params: { id: String(s.messageB.id) },
      }),
      await call(regenerateRoute, `/api/v1/messages/${s.messageB.id}/regenerate`, {
        method: "POST",
        session: bob,
        params: { id: String(s.messageB.id) },
      }),
    ];
    expect(refused.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
    expect(await db.fork.count()).toBe(0);
    // Nothing changed, nothing was sent.
    expect(await db.message.count({ where: { conversationId: s.b.id } })).toBe(1);
    expect(await db.conversationNote.count({ where: { conversationId: s.b.id } })).toBe(1);
    expect((await db.conversation.findUniqueOrThrow({ where: { id: s.b.id } })).status).toBe("open");
    expect(app.telegram.calls.filter((c) => c.method === "sendMessage")).toEqual([]);

    // Search: only its bot's messages, and no note of the other bot.
    const found = await call(searchRoute, "/api/v1/search?q=quetzalfig", { session: bob });
    expect(found.status).toBe(200);
    expect((found.body.results as { conversationId: number }[]).map((r) => r.conversationId)).toEqual([s.a.id]);
    expect(found.body.notes).toEqual([]);
    // The handoffs inbox: bravo's waiting handoff is not theirs.
    const handoffs = await call(handoffsRoute, "/api/v1/handoffs", { session: bob });
    expect(handoffs.body.handoffs).toEqual([]);

    // Datasets hold turns of any bot: a limited agent has none of them (listing or making one).
    const datasets = await call(datasetsRoute, "/api/v1/datasets", { session: bob });
    expect(datasets.status).toBe(403);
    const made = await call(newDatasetRoute, "/api/v1/datasets", {
      method: "POST",
      session: bob,
      body: { name: "x", conversationId: s.b.id },
    });
    expect(made.status).toBe(403);
    expect(await db.dataset.count()).toBe(0);
    const mixed = await db.dataset.create({ data: { name: "both bots", turnIds: [], createdBy: "root" } });
    const baseline = await call(settingsRoute, `/api/v1/settings?datasetId=${mixed.id}`, { session: bob });
    expect(baseline.status).toBe(403);

    // Usage: the spend of Alpha's conversation only (totals, by conversation, by day).
    await turnIn(s.a.id, 0.25);
    await turnIn(s.b.id, 4);
    const spend = async (session: Session, groupBy: string) => {
      const reply = await call(usageRoute, `/api/v1/usage?groupBy=${groupBy}`, { session });
      expect(reply.status).toBe(200);
      return reply.body as { totals: { turns: number; costUsd: number }; rows: { key: string; turns: number }[] };
    };
    const mine = await spend(bob, "conversation");
    expect(mine.totals).toMatchObject({ turns: 1, costUsd: 0.25 });
    expect(mine.rows.map((r) => r.key)).toEqual([String(s.a.id)]);
    expect((await spend(bob, "day")).rows.reduce((n, r) => n + r.turns, 0)).toBe(1);
    expect((await spend(s.admin, "conversation")).totals).toMatchObject({ turns: 2, costUsd: 4.25 });

    // Every bot again: null.
    expect((await limit(TOKEN, s.agent.id, null)).status).toBe(200);
    expect((await spend(bob, "model")).totals).toMatchObject({ turns: 2, costUsd: 4.25 });
    expect((await call(datasetsRoute, "/api/v1/datasets", { session: bob })).status).toBe(200);
    expect((await listIds(bob)).ids).toEqual([s.a.id, s.b.id].sort());
    const all = await call(searchRoute, "/api/v1/search?q=quetzalfig", { session: bob });
    expect((all.body.results as { conversationId: number }[]).map((r) => r.conversationId).sort()).toEqual([s.a.id, s.b.id].sort());
  });

  it("envelopes, settings, the queue and the event stream keep an agent limited to one bot to it", async () => {
    const s = await seed();
    const db = app.t.db.prisma;
    const bob = s.agent.session;
    await db.bot.update({ where: { id: s.bravo.id }, data: { instructions: "bravo's private instructions" } });
    // Written past the app (as another instance would): the settings cache sees it within a second, here at once.
    app.t.db.settingsCache.invalidate();
    const envelope = (
      conversationId: number | null,
      data: { from?: string; to?: string; text: string; status?: string; messageId?: number },
    ) =>
      db.envelope.create({
        data: { from: "operator:root", to: "agent:outside", status: "pending", metadata: {}, conversationId, ...data },
      });
    // Mail about each bot's chat for an outside agent (taken with POST /envelopes/receive), and one about none.
    const mailA = await envelope(s.a.id, { from: "channel:telegram-901:7001", text: "alpha's user wrote this" });
    const mailB = await envelope(s.b.id, { from: "channel:telegram-902:7002", text: "bravo's user wrote this" });
    const loose = await envelope(null, { to: "operator:bob", text: "between operators", status: "done" });
    await limit(s.admin, s.agent.id, [s.alpha.id]);

    // Lists: Alpha's and none's, however asked; Bravo's conversation lists as an unknown one does.
    const listed = async (query = "") => {
      const reply = await call(envelopesRoute, `/api/v1/envelopes${query}`, { session: bob });
      expect(reply.status).toBe(200);
      return (reply.body.envelopes as { id: number }[]).map((e) => e.id);
    };
    expect(await listed()).toEqual([loose.id, mailA.id]);
    expect(await listed(`?conversation=${s.b.id}`)).toEqual([]);
    expect(await listed("?address=channel:telegram-902:7002")).toEqual([]);
    expect(await listed("?address=channel:telegram-901:7001")).toEqual([mailA.id]);
    const all = await call(envelopesRoute, "/api/v1/envelopes", { session: s.admin });
    expect((all.body.envelopes as { id: number }[]).map((e) => e.id)).toEqual([loose.id, mailB.id, mailA.id]);

    // A thread may join conversations (an admin's reply into Bravo's chat): theirs shows without Bravo's part.
    const intoBravo = await envelope(s.b.id, { to: "channel:telegram-902:7002", text: "root answers in bravo's chat", status: "done" });
    await db.envelope.update({ where: { id: intoBravo.id }, data: { replyToEnvelopeId: loose.id, threadRootId: loose.id } });
    const thread = async (session: Session) => {
      const reply = await call(threadRoute, `/api/v1/envelopes/${loose.id}/thread`, { session, params: { id: String(loose.id) } });
      expect(reply.status).toBe(200);
      return (reply.body.tree as { id: number }[]).map((e) => e.id);
    };
    expect(await thread(s.admin)).toEqual([loose.id, intoBravo.id]);
    expect(await thread(bob)).toEqual([loose.id]);
    await db.envelope.delete({ where: { id: intoBravo.id } });

    // Receiving an agent's mail takes Alpha's only; Bravo's stays for whoever may take it.
    const received = await call(receiveRoute, "/api/v1/envelopes/receive", { method: "POST", session: bob, body: { to: "agent:outside" } });
    expect(received.status).toBe(200);
    expect((received.body.envelopes as { id: number }[]).map((e) => e.id)).toEqual([mailA.id]);
    expect((await db.envelope.findUniqueOrThrow({ where: { id: mailB.id } })).status).toBe("pending");

    // Sends into Bravo's chat, tasks for Bravo's agent and replies joining Bravo's conversation: 404 as unknown ones.
    const send = (body: Record<string, unknown>) =>
      call(sendRoute, "/api/v1/envelopes", { method: "POST", session: bob, body: { from: "operator:bob", text: "from bob", ...body } });
    const before = await db.envelope.count();
    const intoB = await send({ to: "channel:telegram-902:7002" });
    const intoUnknown = await send({ to: "channel:telegram-902:7999" });
    expect([intoB.status, intoB.body.error?.message]).toEqual([404, "no conversation channel:telegram-902:7002 is known"]);
    expect(intoUnknown.status).toBe(404);
    const task = await send({ to: "agent:main", conversationId: s.b.id });
    const unknownTask = await send({ to: "agent:main", conversationId: 99999 });
    expect([task.status, unknownTask.status]).toEqual([404, 404]);
    expect(task.body).toEqual(unknownTask.body);
    const reply = await send({ to: "operator:root", replyTo: mailB.id });
    const unknownReply = await send({ to: "operator:root", replyTo: 99999 });
    expect([reply.status, reply.body.error?.message]).toEqual([404, `envelope ${mailB.id} not found`]);
    expect(unknownReply.status).toBe(404);
    expect(await db.envelope.count()).toBe(before);
    expect(await db.fork.count()).toBe(0);
    // Alpha's chat and an operator are theirs to write to.
    expect((await send({ to: "channel:telegram-901:7001" })).status).toBe(201);
    expect((await send({ to: "operator:root", replyTo: mailA.id })).status).toBe(201);
    await app.t.settle();
    expect(app.telegram.calls.filter((c) => c.method === "sendMessage" && String(c.body.chat_id) === "7002")).toEqual([]);

    // The settings in force for Bravo's conversation (its private instructions) are not theirs.
    const settingsOf = (id: number, session = bob) => call(settingsRoute, `/api/v1/settings?conversationId=${id}`, { session });
    const bravoSettings = await settingsOf(s.b.id);
    expect(bravoSettings.status).toBe(404);
    expect(bravoSettings.body).toEqual((await settingsOf(99999)).body);
    expect(JSON.stringify(bravoSettings.body)).not.toContain("private instructions");
    expect((await settingsOf(s.a.id)).status).toBe(200);
    expect(JSON.stringify((await settingsOf(s.b.id, s.admin)).body)).toContain("bravo's private instructions");

    // The queue: time to answer counts Alpha's answered messages only (one; Bravo's two are not theirs).
    const answered = async (conversationId: number, messageId: number) =>
      envelope(conversationId, { to: "agent:main", text: "q", status: "done", messageId });
    const extra = await db.message.create({
      data: {
        conversationId: s.b.id,
        direction: "inbound",
        senderKind: "user",
        text: "again",
        sentAt: new Date(),
        platformMessageId: "again",
      },
    });
    await answered(s.a.id, s.messageA.id);
    await answered(s.b.id, s.messageB.id);
    await answered(s.b.id, extra.id);
    await db.envelope.updateMany({ where: { to: "agent:main", status: "done" }, data: { doneAt: new Date() } });
    const answeredCount = async (session: Session, query = "") => {
      const reply = await call(queueRoute, `/api/v1/queue${query}`, { session });
      expect(reply.status).toBe(200);
      return (reply.body.timeToAnswer as { n: number }[]).reduce((n, m) => n + m.n, 0);
    };
    expect(await answeredCount(s.admin)).toBe(3);
    expect(await answeredCount(s.admin, `?botId=${s.bravo.id}`)).toBe(2);
    expect(await answeredCount(bob)).toBe(1);
    expect(await answeredCount(bob, `?botId=${s.bravo.id}`)).toBe(0);
    expect(await answeredCount(bob, `?botId=${s.alpha.id}`)).toBe(1);
  });

  it("the live event stream names none of another bot's conversations to an agent limited to one bot, and ends when the limit changes", async () => {
    const s = await seed();
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    const open = async (session: Session) => {
      const abort = new AbortController();
      const response = await eventsRoute(
        new Request("http://localhost/api/v1/events", { headers: { cookie: session.cookie }, signal: abort.signal }),
        { params: Promise.resolve({}) },
      );
      expect(response.status).toBe(200);
      return { abort, body: response.body! };
    };
    const bobStream = await open(s.agent.session);
    const adminStream = await open(s.admin);
    const bus = eventBus(app.t.db);
    // Bravo's first, then Alpha's, then one naming no conversation: events stay in order.
    bus.publish({ type: "message", conversationId: s.b.id, messageId: s.messageB.id });
    bus.publish({ type: "envelope", conversationId: s.b.id, envelopeId: 1 });
    bus.publish({ type: "message", conversationId: s.a.id, messageId: s.messageA.id });
    bus.publish({ type: "settings" });
    const last = (frame: string) => frame.startsWith("event: settings");
    const seen = await readUntil(bobStream.body, last);
    const events = seen.frames.filter((f) => f.startsWith("event:"));
    expect(events.map((f) => JSON.parse(f.split("data: ")[1]))).toEqual([
      { type: "message", conversationId: s.a.id, messageId: s.messageA.id },
      { type: "settings" },
    ]);
    const adminSeen = await readUntil(adminStream.body, last);
    expect(adminSeen.frames.filter((f) => f.includes(`"conversationId":${s.b.id}`))).toHaveLength(2);

    // Every bot now: bob's stream (opened under the old limit) ends; the page reconnects under the new one.
    await limit(s.admin, s.agent.id, null);
    expect((await readUntil(bobStream.body, () => false)).ended).toBe(true);
    adminStream.abort.abort();
  });

  it("the conversation list names only an agent's own bots (none when limited to none), every bot for an admin", async () => {
    const s = await seed();
    const botsOf = async (session: Session) => {
      const reply = await call(listRoute, "/api/v1/conversations", { session });
      expectDocumented("get", "/conversations", reply);
      return (reply.body.bots as { name: string }[]).map((b) => b.name);
    };
    const every = (await app.t.db.prisma.bot.findMany({ orderBy: { id: "asc" } })).map((b) => b.name);
    expect(every).toEqual(expect.arrayContaining(["Alpha", "Bravo"]));
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    expect(await botsOf(s.agent.session)).toEqual(["Alpha"]);
    expect(await botsOf(s.admin)).toEqual(every);
    await limit(s.admin, s.agent.id, []);
    expect(await botsOf(s.agent.session)).toEqual([]);
    await limit(s.admin, s.agent.id, null);
    expect(await botsOf(s.agent.session)).toEqual(every);
  });

  it("the prompt inspector's message link opens another bot's turn for nobody limited away from it: not found, as an unknown page", async () => {
    const s = await seed();
    const db = app.t.db.prisma;
    const turnFor = async (message: { id: number; conversationId: number }) => {
      const turn = await turnIn(message.conversationId);
      await db.envelope.update({ where: { id: turn.envelopeId }, data: { messageId: message.id } });
      return turn.id;
    };
    const turnA = await turnFor(s.messageA);
    const turnB = await turnFor(s.messageB);
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    const targetFor = async (session: Session, id: number) => {
      const token = session.cookie
        .split("; ")
        .find((c) => c.startsWith(`${SESSION_COOKIE}=`))!
        .slice(SESSION_COOKIE.length + 1);
      const operator = await operatorOfSession(app.t.db, token);
      return inspectTargetOf(app.t.db, operator!.bots, String(id));
    };
    expect(await targetFor(s.agent.session, s.messageA.id)).toEqual({ kind: "turn", turnId: turnA });
    expect(await targetFor(s.agent.session, s.messageB.id)).toEqual({ kind: "not_found" });
    expect(await targetFor(s.admin, s.messageB.id)).toEqual({ kind: "turn", turnId: turnB });
    await limit(s.admin, s.agent.id, []);
    expect(await targetFor(s.agent.session, s.messageA.id)).toEqual({ kind: "not_found" });
    // An unknown message is the same page for everyone: no turn belongs to it.
    expect(await targetFor(s.agent.session, 999_999)).toEqual({ kind: "none", messageId: 999_999 });
  });

  it("a narrowed limit holds for the events published right after it: none of them is judged before the stream's check ends it", async () => {
    const s = await seed();
    const bus = eventBus(app.t.db);
    const openStream = async () => {
      const response = await eventsRoute(new Request("http://localhost/api/v1/events", { headers: { cookie: s.agent.session.cookie } }), {
        params: Promise.resolve({}),
      });
      expect(response.status).toBe(200);
      return response.body!;
    };
    // Every bot, then only Alpha (a stream with no filter at all); both bots, then only Alpha (a filter with Bravo remembered).
    for (const [before, after] of [
      [null, [s.alpha.id]],
      [[s.alpha.id, s.bravo.id], [s.alpha.id]],
    ] as const) {
      await limit(s.admin, s.agent.id, before === null ? null : [...before]);
      const stream = await openStream();
      bus.publish({ type: "message", conversationId: s.b.id, messageId: s.messageB.id });
      expect((await readUntil(stream, (f) => f.startsWith("event: message"))).found).toContain(`"conversationId":${s.b.id}`);
      expect((await limit(s.admin, s.agent.id, [...after])).status).toBe(200);
      // A message to Bravo arriving while the stream's check of its session is still under way.
      bus.publish({ type: "message", conversationId: s.b.id, messageId: 424242 });
      bus.publish({ type: "envelope", conversationId: s.b.id, envelopeId: 424243 });
      const rest = await readUntil(stream, () => false);
      expect(rest.ended).toBe(true);
      expect(rest.frames.filter((f) => f.startsWith("event:"))).toEqual([]);
    }
  });

  it("an envelope's end names its conversation, and an agent limited to one bot hears only of their bots' and of those between operators", async () => {
    const s = await seed();
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    const db = app.t.db.prisma;
    const envelopeIn = (conversationId: number | null) =>
      db.envelope.create({
        data: { from: "agent:main", to: "agent:other", text: "x", status: "processing", conversationId, metadata: {} },
      });
    const [inA, inB, between] = [await envelopeIn(s.a.id), await envelopeIn(s.b.id), await envelopeIn(null)];
    const streamOf = async (session: Session) => {
      const response = await eventsRoute(new Request("http://localhost/api/v1/events", { headers: { cookie: session.cookie } }), {
        params: Promise.resolve({}),
      });
      return response.body!;
    };
    const bobStream = await streamOf(s.agent.session);
    const adminStream = await streamOf(s.admin);
    // Each caller passes the conversation it has read: ending an envelope reads nothing to name it.
    const envelopeReads = vi.spyOn(db.envelope, "findUnique");
    await endEnvelope(app.t.db, inB.id, { status: "done" }, s.b.id);
    await endEnvelope(app.t.db, [inA.id], { status: "done" }, s.a.id);
    await endEnvelope(app.t.db, between.id, { status: "failed", error: "x" }, null);
    expect(envelopeReads).not.toHaveBeenCalled();
    envelopeReads.mockRestore();
    const bus = eventBus(app.t.db);
    // An envelope event naming no conversation (an instance of an older version, through the relay): its bot is unknown.
    bus.publish({ type: "envelope", envelopeId: inB.id });
    bus.publish({ type: "conversation" });
    bus.publish({ type: "settings" });
    const eventsOf = async (stream: ReadableStream<Uint8Array>) =>
      (await readUntil(stream, (f) => f.startsWith("event: settings"))).frames
        .filter((f) => f.startsWith("event:"))
        .map((f) => JSON.parse(f.split("data: ")[1]));
    expect(await eventsOf(bobStream)).toEqual([
      { type: "envelope", conversationId: s.a.id, envelopeId: inA.id },
      { type: "envelope", conversationId: null, envelopeId: between.id },
      { type: "conversation" },
      { type: "settings" },
    ]);
    expect((await eventsOf(adminStream)).slice(0, 3)).toEqual([
      { type: "envelope", conversationId: s.b.id, envelopeId: inB.id },
      { type: "envelope", conversationId: s.a.id, envelopeId: inA.id },
      { type: "envelope", conversationId: null, envelopeId: between.id },
    ]);
    await bobStream.cancel();
    await adminStream.cancel();
  });

  it("a stream whose check fails (the database unreachable) ends before it sends another event", async () => {
    const bus = new EventBus();
    const stream = eventStreamResponse(bus, new AbortController().signal, {
      stillAuthorized: () => Promise.reject(new Error("database busy")),
    }).body!;
    expect((await readUntil(stream, (f) => f.includes(": connected"))).ended).toBe(false);
    bus.publish({ type: "operators" });
    bus.publish({ type: "settings" });
    const rest = await readUntil(stream, () => false);
    expect(rest.ended).toBe(true);
    expect(rest.frames.filter((f) => f.startsWith("event:"))).toEqual([]);
    expect(bus.listenerCount()).toBe(0);
  });

  it("an agent limited to no bots (an empty list) reaches no conversation, message or turn, and lists nothing", async () => {
    const s = await seed();
    const turn = await turnIn(s.a.id);
    const bob = s.agent.session;
    const limited = await limit(s.admin, s.agent.id, []);
    expect(limited.status).toBe(200);
    expect((limited.body.operator as { botIds: number[] }).botIds).toEqual([]);

    const byId = [
      await call(conversationRoute, `/api/v1/conversations/${s.a.id}`, { session: bob, params: { id: String(s.a.id) } }),
      await call(timelineRoute, `/api/v1/conversations/${s.a.id}/messages`, { session: bob, params: { id: String(s.a.id) } }),
      await call(messageThreadRoute, `/api/v1/messages/${s.messageA.id}/thread`, { session: bob, params: { id: String(s.messageA.id) } }),
      await call(turnRoute, `/api/v1/turns/${turn.id}`, { session: bob, params: { id: String(turn.id) } }),
    ];
    expect(byId.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(byId.map((r) => r.body.error?.message)).toEqual([
      "conversation not found",
      "conversation not found",
      "message not found",
      "turn not found",
    ]);

    const { ids, counts } = await listIds(bob);
    expect(ids).toEqual([]);
    expect(counts.all).toBe(0);
    expect((await call(searchRoute, "/api/v1/search?q=quetzalfig", { session: bob })).body).toMatchObject({ results: [], notes: [] });
    expect((await call(handoffsRoute, "/api/v1/handoffs", { session: bob })).body.handoffs).toEqual([]);
    expect((await call(forksRoute, "/api/v1/forks", { session: bob })).body.forks).toEqual([]);
    const spend = await call(usageRoute, "/api/v1/usage?groupBy=conversation", { session: bob });
    expect(spend.body).toMatchObject({ totals: { turns: 0 }, rows: [] });
    const csv = await call(conversationsCsvRoute, "/api/v1/conversations/export", { session: bob });
    expect((await csv.response.text()).trim().split("\r\n")).toHaveLength(1);
    expect((await call(envelopesRoute, "/api/v1/envelopes", { session: bob })).body.envelopes).toEqual([]);
    expect((await call(settingsRoute, `/api/v1/settings?conversationId=${s.a.id}`, { session: bob })).status).toBe(404);
    const sent = await call(sendRoute, "/api/v1/envelopes", {
      method: "POST",
      session: bob,
      body: { from: "operator:bob", to: "channel:telegram-901:7001", text: "from bob" },
    });
    expect(sent.status).toBe(404);

    // The same calls with every bot again reach both.
    await limit(s.admin, s.agent.id, null);
    expect((await listIds(bob)).ids).toEqual([s.a.id, s.b.id].sort());
    expect((await call(turnRoute, `/api/v1/turns/${turn.id}`, { session: bob, params: { id: String(turn.id) } })).status).toBe(200);
  });

  it("the settings change log shows an agent limited to some bots the global changes and their bots' only", async () => {
    const s = await seed();
    const bob = s.agent.session;
    const change = (botId: number | null, key: string, newValue: string) =>
      app.t.db.prisma.settingChange.create({ data: { botId, key, newValue, changedBy: "root" } });
    await change(null, "agentName", "global-name");
    await change(s.alpha.id, "agentInstructions", "alpha's instructions");
    await change(s.bravo.id, "agentInstructions", "bravo's private instructions");
    const changes = async (session: Session) => {
      const reply = await call(settingsRoute, "/api/v1/settings", { session });
      expect(reply.status).toBe(200);
      return (reply.body.changes as { newValue: string; bot: { id: number } | null }[]).map((c) => [c.bot?.id ?? null, c.newValue]);
    };
    const everything = [
      [s.bravo.id, "bravo's private instructions"],
      [s.alpha.id, "alpha's instructions"],
      [null, "global-name"],
    ];
    expect(await changes(s.admin)).toEqual(everything);
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    expect(await changes(bob)).toEqual(everything.slice(1));
    await limit(s.admin, s.agent.id, []);
    expect(await changes(bob)).toEqual(everything.slice(2));
    await limit(s.admin, s.agent.id, null);
    expect(await changes(bob)).toEqual(everything);
  });

  it("the route's declaration decides the check, whatever the path says: another bot's records are 404, an admin route is 403 to an agent", async () => {
    const s = await seed();
    const bob = s.agent.session;
    const turnB = await turnIn(s.b.id);
    const envelopeB = await app.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: turnB.envelopeId } });
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    // A path that names no resource: the scope comes from what the route declares its [id] to be, not from the URL.
    const at = (handler: unknown, id: number) => call(handler, "/api/v1/elsewhere", { session: bob, params: { id: String(id) } });
    const refused = [
      [conversationRoute, s.b.id, "conversation not found"],
      [messageThreadRoute, s.messageB.id, "message not found"],
      [envelopeRoute, envelopeB.id, "envelope not found"],
      [turnRoute, turnB.id, "turn not found"],
    ] as const;
    for (const [handler, id, message] of refused) {
      const reply = await at(handler, id);
      expect([reply.status, reply.body.error]).toEqual([404, { code: "not_found", message }]);
    }
    expect((await at(conversationRoute, s.a.id)).status).toBe(200);
    expect((await at(messageThreadRoute, s.messageA.id)).status).toBe(200);
    // The same records for an admin (never limited).
    expect((await call(envelopeRoute, "/api/v1/elsewhere", { session: s.admin, params: { id: String(envelopeB.id) } })).status).toBe(200);

    const bots = await call(botsRoute, "/api/v1/bots", { session: bob });
    expect([bots.status, bots.body.error]).toEqual([
      403,
      { code: "forbidden", message: "only an admin can see the bots; bob is an agent" },
    ]);
    expect((await call(botsRoute, "/api/v1/bots", { session: s.admin })).status).toBe(200);
    // An admin-only route that is also scoped: the role first, the same 403 whatever the id (their bot's, another bot's,
    // an unknown one), so it tells nothing about which ids exist; nothing removed.
    const remove = (id: number) =>
      call(conversationDeleteRoute, `/api/v1/conversations/${id}`, { method: "DELETE", session: bob, params: { id: String(id) } });
    for (const id of [s.a.id, s.b.id, s.b.id + 1000]) {
      const refused = await remove(id);
      expect([refused.status, refused.body.error]).toEqual([
        403,
        { code: "forbidden", message: "only an admin can delete a conversation's data; bob is an agent" },
      ]);
    }
    expect(await app.t.db.prisma.message.count({ where: { conversationId: s.b.id } })).toBe(1);
    expect(await app.t.db.prisma.message.count({ where: { conversationId: s.a.id } })).toBe(1);
  });

  it("saved replies filled for another bot's conversation are refused to an agent limited away from it, as an unknown one: its user's name stays unread", async () => {
    const s = await seed();
    const bob = s.agent.session;
    await app.t.db.prisma.message.update({ where: { id: s.messageB.id }, data: { senderPlatformId: "7002", senderName: "Bea Bravo" } });
    await app.t.db.prisma.message.update({ where: { id: s.messageA.id }, data: { senderPlatformId: "7001", senderName: "Al Alpha" } });
    const created = await call(newSavedReplyRoute, "/api/v1/saved-replies", {
      method: "POST",
      session: bob,
      body: { shortcut: "hi", text: "Hello {{name}}" },
    });
    expect(created.status).toBe(201);
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    const filled = (conversationId: number, session: Session) =>
      call(savedRepliesRoute, `/api/v1/saved-replies?conversationId=${conversationId}`, { session });
    const foreign = await filled(s.b.id, bob);
    expect([foreign.status, foreign.body.error]).toEqual([404, { code: "not_found", message: "conversation not found" }]);
    expect(JSON.stringify(foreign.body)).not.toContain("Bea Bravo");
    const own = await filled(s.a.id, bob);
    expect((own.body.savedReplies as { expanded: string }[]).map((r) => r.expanded)).toEqual(["Hello Al Alpha"]);
    // An admin is never limited.
    expect(((await filled(s.b.id, s.admin)).body.savedReplies as { expanded: string }[]).map((r) => r.expanded)).toEqual([
      "Hello Bea Bravo",
    ]);
  });

  it("a static route called as Next calls it, with no route params, answers (the scope check needs no id)", async () => {
    const s = await seed();
    await limit(s.admin, s.agent.id, [s.alpha.id]);
    const request = new Request("http://localhost/api/v1/conversations", { headers: { cookie: s.agent.session.cookie } });
    const response = await (listRoute as unknown as (r: Request) => Promise<Response>)(request);
    expect(response.status).toBe(200);
    const byToken = await (listRoute as unknown as (r: Request) => Promise<Response>)(
      new Request("http://localhost/api/v1/conversations", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(byToken.status).toBe(200);
  });

  it("admins and the API token are never limited; unknown bots are a 400; an agent cannot change limits", async () => {
    const s = await seed();
    // A limit stored on an admin has no effect while they are one.
    expect((await limit(TOKEN, s.adminId, [s.alpha.id])).status).toBe(200);
    expect((await listIds(s.admin)).ids).toEqual([s.a.id, s.b.id].sort());
    const other = await call(conversationRoute, `/api/v1/conversations/${s.b.id}`, { session: s.admin, params: { id: String(s.b.id) } });
    expect(other.status).toBe(200);
    const byToken = await call(conversationRoute, `/api/v1/conversations/${s.b.id}`, { token: TOKEN, params: { id: String(s.b.id) } });
    expect(byToken.status).toBe(200);

    const bad = await limit(s.admin, s.agent.id, [s.alpha.id, 424242]);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain("424242");
    expect((await app.t.db.prisma.operator.findUniqueOrThrow({ where: { id: s.agent.id } })).botIds).toBeNull();
    expect((await limit(s.admin, s.agent.id, [-1])).status).toBe(400);

    // The agent can neither limit nor widen themselves (nor anyone).
    expect((await limit(s.admin, s.agent.id, [s.alpha.id])).status).toBe(200);
    const own = await limit(s.agent.session, s.agent.id, null);
    expect(own.status).toBe(403);
    expect((await app.t.db.prisma.operator.findUniqueOrThrow({ where: { id: s.agent.id } })).botIds).toEqual([s.alpha.id]);
    expect((await limit(s.agent.session, s.adminId, [s.bravo.id])).status).toBe(403);

    // A stored limit that is not a list of ids (edited by hand) is no bot, never every bot.
    await app.t.db.prisma.operator.update({ where: { id: s.agent.id }, data: { botIds: { oops: true } } });
    expect((await listIds(s.agent.session)).ids).toEqual([]);
  });
});
