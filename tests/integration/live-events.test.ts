import { describe, expect, it } from "vitest";
import { GET as eventsRoute } from "@/app/api/v1/events/route";
import { GET as timelineRoute, POST as messageRoute } from "@/app/api/v1/conversations/[id]/messages/route";
import { EventBus, eventBus, type LiveEvent } from "@/lib/events/bus";
import { createHash } from "node:crypto";
import { RESYNC, startPostgresRelay } from "@/lib/events/postgres-relay";
import { postgresTarget } from "@/lib/db/migrations.mjs";
import { eventStreamResponse, MAX_UNREAD_BYTES } from "@/lib/http/event-stream";
import { POST as logoutRoute } from "@/app/api/auth/logout/route";
import { createSession, findLiveSessionById } from "@/lib/db/operators";
import { LiveStreams } from "@/lib/events/live-streams";
import { openDb } from "@/lib/db/database";
import { update } from "../fixtures/telegram";
import { startTestApp } from "../helpers/app";
import { databases, hasPostgres, postgresTestDb } from "../helpers/db";
import { startFakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, useRoutedApp } from "../helpers/route-app";
import { readUntil } from "../helpers/sse";

const TOKEN = "live-events-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const route = <P>(params: P) => ({ params: Promise.resolve(params) });

describe.each(databases)("live events and the timeline API ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  it("GET /events needs a session or the API token", async () => {
    const response = await eventsRoute(new Request("http://localhost/api/v1/events"), route({}));
    expect(response.status).toBe(401);
    expect(eventBus(app.t.db).listenerCount()).toBe(0);
  });

  it("a bad token or a forged cookie is a 401 with no subscription; streams opened and dropped leave no listener and free their places", async () => {
    for (const headers of [
      { authorization: "Bearer wrong-token-0123456789" },
      { authorization: "Basic abc" },
      { cookie: "switchboard_session=forged" },
    ] as Record<string, string>[]) {
      expect((await eventsRoute(new Request("http://localhost/api/v1/events", { headers }), route({}))).status).toBe(401);
    }
    expect(eventBus(app.t.db).listenerCount()).toBe(0);
    const perSession = app.t.app.liveStreams.limits.perHolder;
    for (let round = 0; round < 20; round++) {
      const streams = await Promise.all(
        Array.from({ length: perSession }, async (_, i) => {
          const abort = new AbortController();
          const response = await eventsRoute(
            new Request("http://localhost/api/v1/events", { headers: auth, signal: abort.signal }),
            route({}),
          );
          expect(response.status).toBe(200);
          return { abort, response, i };
        }),
      );
      expect(eventBus(app.t.db).listenerCount()).toBe(perSession);
      // Half go away by the signal (a closed tab), half by cancelling the body (a proxy dropping it).
      for (const { abort, response, i } of streams) {
        if (i % 2) abort.abort();
        else await response.body!.cancel();
      }
      expect(eventBus(app.t.db).listenerCount()).toBe(0);
      expect(app.t.app.liveStreams.size).toBe(0);
    }
  });

  it("caps streams per session and in all: past a cap a new stream is refused with a sentence, and a freed place is taken again", async () => {
    const streams = new LiveStreams({ perHolder: 3, total: 5 });
    installRouteApp({ ...app.t.app, liveStreams: streams }, TOKEN);
    const operator = await app.t.db.prisma.operator.create({ data: { name: "ann", passwordHash: "x" } });
    const cookies: string[] = [];
    for (const token of ["session-token-one-0123456789", "session-token-two-0123456789"]) {
      await createSession(app.t.db, { operatorId: operator.id, token, csrfToken: "c", expiresAt: new Date(Date.now() + 3_600_000) });
      cookies.push(`sb_session=${token}`);
    }
    const open = async (headers: Record<string, string>) => {
      const abort = new AbortController();
      const response = await eventsRoute(new Request("http://localhost/api/v1/events", { headers, signal: abort.signal }), route({}));
      return { abort, response };
    };
    const first = [await open({ cookie: cookies[0]! }), await open({ cookie: cookies[0]! }), await open({ cookie: cookies[0]! })];
    expect(first.map((s) => s.response.status)).toEqual([200, 200, 200]);
    const fourth = await open({ cookie: cookies[0]! });
    expect(fourth.response.status).toBe(429);
    expect(((await fourth.response.json()) as { error: { message: string } }).error.message).toMatch(
      /at most 3 live-event streams per session/,
    );
    // Another session has its own places, up to the process's cap.
    const second = [await open({ cookie: cookies[1]! }), await open({ cookie: cookies[1]! })];
    expect(second.map((s) => s.response.status)).toEqual([200, 200]);
    const full = await open(auth);
    expect(full.response.status).toBe(503);
    expect(((await full.response.json()) as { error: { message: string } }).error.message).toMatch(/maximum of 5 live-event streams/);
    expect(eventBus(app.t.db).listenerCount()).toBe(5);
    // A closed stream frees its place.
    first[0]!.abort.abort();
    expect(streams.size).toBe(4);
    expect((await open(auth)).response.status).toBe(200);
    for (const s of [...first, ...second]) s.abort.abort();
  });

  it("a stream ends when its session signs out, and only that session's streams", async () => {
    const operator = await app.t.db.prisma.operator.create({ data: { name: "ann", passwordHash: "x" } });
    const expiresAt = new Date(Date.now() + 3_600_000);
    await createSession(app.t.db, { operatorId: operator.id, token: "leaving-token-0123456789", csrfToken: "c1", expiresAt });
    await createSession(app.t.db, { operatorId: operator.id, token: "staying-token-0123456789", csrfToken: "c2", expiresAt });
    const open = (token: string) =>
      eventsRoute(new Request("http://localhost/api/v1/events", { headers: { cookie: `sb_session=${token}` } }), route({}));
    const leaving = await open("leaving-token-0123456789");
    const staying = await open("staying-token-0123456789");
    expect([leaving.status, staying.status]).toEqual([200, 200]);
    const signedOut = await logoutRoute(
      new Request("http://localhost/api/auth/logout", {
        method: "POST",
        headers: { cookie: "sb_session=leaving-token-0123456789", origin: "http://localhost", host: "localhost" },
      }),
      route({}),
    );
    expect(signedOut.status).toBe(200);
    expect((await readUntil(leaving.body!, () => false)).ended).toBe(true);
    expect(eventBus(app.t.db).listenerCount()).toBe(1);
    expect(app.t.app.liveStreams.size).toBe(1);
    await staying.body!.cancel();
  });

  it("a stream whose session is revoked elsewhere (deleted, expired) ends at its next heartbeat", async () => {
    const operator = await app.t.db.prisma.operator.create({ data: { name: "ann", passwordHash: "x" } });
    const session = await createSession(app.t.db, {
      operatorId: operator.id,
      token: "revoked-token-0123456789",
      csrfToken: "c",
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const bus = new EventBus();
    const response = eventStreamResponse(bus, new AbortController().signal, {
      heartbeatMs: 20,
      stillAuthorized: async () => (await findLiveSessionById(app.t.db, session.id, new Date())) !== null,
    });
    const reader = response.body!;
    const heartbeats = await readUntil(reader, (frame) => frame.startsWith(": heartbeat"));
    expect(heartbeats.ended).toBe(false);
    await app.t.db.prisma.operatorSession.delete({ where: { id: session.id } });
    expect((await readUntil(reader, () => false)).ended).toBe(true);
    expect(bus.listenerCount()).toBe(0);
  });

  it("streams a message event after an ingest, and closes cleanly when the client goes away", async () => {
    const abort = new AbortController();
    const response = await eventsRoute(new Request("http://localhost/api/v1/events", { headers: auth, signal: abort.signal }), route({}));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(eventBus(app.t.db).listenerCount()).toBe(1);
    const posted = app.t.post(update({ text: "hello over the stream" }));
    const { found, frames } = await readUntil(response.body!, (frame) => frame.startsWith("event: message"));
    expect(frames[0]).toMatch(/^retry: \d+/);
    expect((await posted).status).toBe(200);
    const event = JSON.parse(found!.split("\ndata: ")[1]!) as LiveEvent;
    const stored = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: "hello over the stream" } });
    expect(event).toEqual({ type: "message", conversationId: stored.conversationId, messageId: stored.id });
    abort.abort();
    const rest = await readUntil(response.body!, () => false);
    expect(rest.ended).toBe(true);
    expect(eventBus(app.t.db).listenerCount()).toBe(0);
  });

  it("pages the whole history backwards with nextBefore", async () => {
    for (let i = 1; i <= 7; i++) expect((await app.t.post(update({ text: `message ${i}` }))).status).toBe(200);
    const conversation = await app.t.db.prisma.conversation.findFirstOrThrow();
    const seen: string[] = [];
    let before: number | null = null;
    for (let page = 0; page < 10; page++) {
      const url = `http://localhost/api/v1/conversations/${conversation.id}/messages?take=3${before ? `&before=${before}` : ""}`;
      const response = await timelineRoute(new Request(url, { headers: auth }), route({ id: String(conversation.id) }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { messages: { text: string }[]; nextBefore: number | null };
      seen.unshift(...body.messages.map((m) => m.text));
      before = body.nextBefore;
      if (!before) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `message ${i}`));
  });

  it("a plain operator message goes out through the channel, is recorded and published", async () => {
    await app.t.post(update({ text: "hi" }));
    const conversation = await app.t.db.prisma.conversation.findFirstOrThrow();
    const events: LiveEvent[] = [];
    const unsubscribe = eventBus(app.t.db).subscribe((e) => events.push(e));
    const post = (headers: Record<string, string>, body: unknown) =>
      messageRoute(
        new Request(`http://localhost/api/v1/conversations/${conversation.id}/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        }),
        route({ id: String(conversation.id) }),
      );
    expect((await post({}, { text: "no auth" })).status).toBe(401);
    expect((await post(auth, { text: "   " })).status).toBe(400);
    const response = await post(auth, { text: "A plain message from the console" });
    expect(response.status).toBe(201);
    const { messageId } = (await response.json()) as { messageId: number };
    unsubscribe();
    const sends = app.telegram.sends();
    expect(sends).toHaveLength(1);
    expect(sends[0]!.body).toMatchObject({ text: "A plain message from the console" });
    expect((sends[0]!.body as Record<string, unknown>).reply_parameters).toBeUndefined();
    const stored = await app.t.db.prisma.message.findUniqueOrThrow({ where: { id: messageId } });
    expect(stored).toMatchObject({ senderKind: "operator", senderName: "api", replyToMessageId: null, direction: "outbound" });
    expect(await app.t.db.prisma.envelope.findFirst({ where: { messageId, from: "operator:api", status: "done" } })).not.toBeNull();
    expect(events).toContainEqual({ type: "message", conversationId: conversation.id, messageId });
    // A stranger's unknown conversation is a 404, not a send.
    expect(
      (
        await messageRoute(
          new Request("http://localhost/api/v1/conversations/999999/messages", {
            method: "POST",
            headers: { "content-type": "application/json", ...auth },
            body: '{"text":"x"}',
          }),
          route({ id: "999999" }),
        )
      ).status,
    ).toBe(404);
    expect(app.telegram.sends()).toHaveLength(1);
  });
});

describe.skipIf(!hasPostgres)("live events across instances (PostgreSQL LISTEN/NOTIFY)", () => {
  it("after its LISTEN connection dies the relay reconnects, tells local pages to refetch, and relays again", async () => {
    const testDb = await postgresTestDb();
    const second = await openDb(testDb.url);
    const telegram = await startFakeTelegram();
    const a = await startTestApp({ db: testDb, telegram, model: null });
    const relay = startPostgresRelay(second, testDb.url, { reconnectMs: 50 });
    try {
      await Promise.all([a.app.relay!.ready, relay.ready]);
      const received: LiveEvent[] = [];
      let wake = () => {};
      eventBus(second).subscribe((event) => {
        received.push(event);
        wake();
      });
      const until = async (check: () => boolean) => {
        for (let i = 0; i < 200 && !check(); i++)
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 50);
          });
        expect(check()).toBe(true);
      };
      // Only this test's LISTEN (its channel is per schema): other suites share the server.
      const channel = `switchboard_events_${createHash("sha256").update(postgresTarget(testDb.url).schema).digest("hex").slice(0, 16)}`;
      const [killed] = await testDb.db.read<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = ?`,
        `LISTEN "${channel}"`,
      );
      expect(killed?.ok).toBe(true);
      await until(() => RESYNC.every((e) => received.some((r) => JSON.stringify(r) === JSON.stringify(e))));
      expect((await a.post(update({ text: "after the reconnect" }))).status).toBe(200);
      await until(() => received.some((e) => e.type === "message"));
    } finally {
      await relay.close();
      await a.stop();
      await second.close();
      await testDb.close();
      await telegram.close();
    }
  }, 30_000);

  it("an ingest on one instance reaches the other's subscribers", async () => {
    const testDb = await postgresTestDb();
    const second = await openDb(testDb.url);
    const telegram = await startFakeTelegram();
    const a = await startTestApp({ db: testDb, telegram, model: null });
    const relay = startPostgresRelay(second, testDb.url);
    try {
      await Promise.all([a.app.relay!.ready, relay.ready]);
      const received: LiveEvent[] = [];
      const arrived = new Promise<void>((resolve) =>
        eventBus(second).subscribe((event) => {
          received.push(event);
          if (event.type === "message") resolve();
        }),
      );
      const local: LiveEvent[] = [];
      eventBus(testDb.db).subscribe((event) => local.push(event));
      expect((await a.post(update({ text: "from instance A" }))).status).toBe(200);
      await arrived;
      const stored = await testDb.db.prisma.message.findFirstOrThrow({ where: { text: "from instance A" } });
      expect(received).toContainEqual({ type: "message", conversationId: stored.conversationId, messageId: stored.id });
      // The publishing instance hears its own event once, not a second time through NOTIFY.
      await new Promise((r) => setTimeout(r, 200));
      expect(local.filter((e) => e.type === "message")).toHaveLength(1);
    } finally {
      await relay.close();
      await a.stop();
      await second.close();
      await testDb.close();
      await telegram.close();
    }
  }, 30_000);
});

describe("the event bus", () => {
  it("keeps a failing listener from reaching the writer", async () => {
    const bus = new EventBus();
    const got: LiveEvent[] = [];
    bus.subscribe(() => {
      throw new Error("closed stream");
    });
    bus.subscribe((e) => got.push(e));
    expect(() => bus.publish({ type: "settings" })).not.toThrow();
    expect(got).toEqual([{ type: "settings" }]);
  });
});

describe("the event stream", () => {
  it("drops a client that never reads instead of buffering without bound, and frees its subscription", async () => {
    const bus = new EventBus();
    const response = eventStreamResponse(bus, new AbortController().signal, { heartbeatMs: 60_000 });
    expect(bus.listenerCount()).toBe(1);
    // Nobody reads the body: every event would otherwise wait in the stream's queue.
    for (let i = 0; i < 10_000; i++) bus.publish({ type: "message", conversationId: 1, messageId: i });
    expect(bus.listenerCount()).toBe(0);
    // What is left for a late reader is bounded, then the stream ends in an error (EventSource reconnects).
    const reader = response.body!.getReader();
    let frames = 0;
    await expect(
      (async () => {
        for (;;) {
          const { done } = await reader.read();
          if (done) return;
          frames++;
        }
      })(),
    ).rejects.toThrow(/too slow/);
    expect(frames).toBeLessThan(10_000);
  });

  it("counts a slow reader's unread bytes, not frames: dropped once they would pass MAX_UNREAD_BYTES, never before", async () => {
    const bus = new EventBus();
    const response = eventStreamResponse(bus, new AbortController().signal, { heartbeatMs: 60_000 });
    const frame = (i: number) => `event: message\ndata: ${JSON.stringify({ type: "message", conversationId: 1, messageId: i })}\n\n`;
    let unread = Buffer.byteLength("retry: 3000\n: connected\n\n");
    let i = 0;
    while (bus.listenerCount() === 1 && i < 100_000) {
      const next = Buffer.byteLength(frame(i));
      bus.publish({ type: "message", conversationId: 1, messageId: i++ });
      if (bus.listenerCount() === 1) unread += next;
      else expect(unread + next).toBeGreaterThan(MAX_UNREAD_BYTES);
    }
    expect(bus.listenerCount()).toBe(0);
    expect(unread).toBeLessThanOrEqual(MAX_UNREAD_BYTES);
    // Larger frames fill the allowance sooner than small ones: bytes decide, whatever the count.
    expect(i).toBeGreaterThan(256);
    await response.body!.cancel().catch(() => {});
  });

  it("a client that reads keeps its stream however many events pass", async () => {
    const bus = new EventBus();
    const response = eventStreamResponse(bus, new AbortController().signal, { heartbeatMs: 60_000 });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let i = 0; i < 2_000; i++) {
      bus.publish({ type: "message", conversationId: 1, messageId: i });
      const { value } = await reader.read();
      text += decoder.decode(value);
    }
    // Every event reached the reader (the first read may be the stream's preamble alone).
    for (const i of [0, 1_000, 1_998]) expect(text).toContain(`"messageId":${i}}`);
    expect(bus.listenerCount()).toBe(1);
    await reader.cancel();
    expect(bus.listenerCount()).toBe(0);
  });
});
