import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSRF_HEADER, SESSION_COOKIE } from "@/lib/auth/operators";
import { createSession } from "@/lib/db/operators";
import { readEnvelopeMetadata } from "@/lib/db/envelope-metadata";
import { describeStateChange } from "@/app/(dashboard)/_lib/state-change";
import type { StateChange } from "@/lib/inbox/state-changes";
import { housekeeping } from "@/lib/server/housekeeping";
import { alice, group, update } from "../fixtures/telegram";
import { databases, hasPostgres, POSTGRES_SKIP_REASON } from "../helpers/db";
import { useHarness } from "../helpers/harness";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

const TOKEN = "test-api-token-0123456789";
type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;

/**
 * The team inbox on a real database: status and assignee changes through the real
 * route handlers, each an envelope in the history; the user's message reopening
 * and waking; notes that never reach the model (checked on the exact requests the
 * model fake received); saved replies filled for the user; views and exports.
 */
describe.each(databases)("the team inbox on $name", ({ name, open }) => {
  const h = useHarness({ open, script: () => ({ reply: "Happy to help" }) });
  beforeEach(() => installRouteApp(h.t.app, TOKEN));
  afterEach(() => uninstallRouteApp());

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; id?: number } = {},
  ): Promise<{ status: number; text: string; json: any; headers: Headers }> {
    const folder = path.split("?")[0]!.replace(/\/\d+(?=\/|$)/, "/[id]");
    const route = (await import(resolve("app/api/v1", `.${folder}`, "route.ts"))) as Route;
    const id = /\/(\d+)(?=\/|$|\?)/.exec(path)?.[1];
    const response = await route[method](
      new Request(`http://localhost/api/v1${path}`, {
        method,
        headers: {
          ...(options.headers ?? { authorization: `Bearer ${TOKEN}` }),
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
      }),
      { params: Promise.resolve(id ? { id } : {}) },
    );
    const text = await response.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, text, json, headers: response.headers };
  }

  const conversation = () => h.t.db.prisma.conversation.findFirstOrThrow({ orderBy: { id: "asc" } });
  const inboxEnvelopes = async () =>
    (await h.t.db.prisma.envelope.findMany({ orderBy: { id: "asc" } }))
      .map((e) => ({ from: e.from, to: e.to, status: e.status, text: e.text, inbox: readEnvelopeMetadata(e.metadata).inbox }))
      .filter((e) => e.inbox);

  async function start() {
    await h.t.post(update({ text: "hello, my parcel has not arrived" }));
    await h.t.settle();
    return (await conversation()).id;
  }

  it("status and assignee changes are envelopes in the history; a stale change is a 409 that writes nothing", async () => {
    const id = await start();
    const dana = await h.t.db.prisma.operator.create({ data: { name: "dana", passwordHash: "scrypt$x$y" } });
    expect((await conversation()).status).toBe("open");

    const resolved = await call("PATCH", `/conversations/${id}`, { body: { status: "resolved", assigneeId: dana.id } });
    expect(resolved.status).toBe(200);
    expect(resolved.json.conversation).toMatchObject({ status: "resolved", assigneeId: dana.id, snoozedUntil: null });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (await call("PATCH", `/conversations/${id}`, { body: { status: "snoozed", snoozedUntil: until } })).json.conversation,
    ).toMatchObject({ status: "snoozed", snoozedUntil: until });
    await call("PATCH", `/conversations/${id}`, { body: { status: "open", assigneeId: null } });
    // The same status again changes nothing and records nothing.
    await call("PATCH", `/conversations/${id}`, { body: { status: "open" } });

    expect(await inboxEnvelopes()).toEqual([
      {
        from: "operator:api",
        to: "operator:inbox",
        status: "done",
        text: "resolved by api",
        inbox: expect.objectContaining({ action: "resolve", status: "resolved" }),
      },
      expect.objectContaining({
        text: "assigned to dana by api",
        inbox: expect.objectContaining({ action: "assign", assigneeId: dana.id }),
      }),
      expect.objectContaining({
        text: `snoozed until ${until} by api`,
        inbox: expect.objectContaining({ action: "snooze", snoozedUntil: until }),
      }),
      expect.objectContaining({ text: "reopened by api", inbox: expect.objectContaining({ action: "reopen", status: "open" }) }),
      expect.objectContaining({ text: "unassigned by api", inbox: expect.objectContaining({ action: "unassign", assigneeId: null }) }),
    ]);
  });

  it("bad input is a 4xx with a message, and changes nothing", async () => {
    const id = await start();
    const before = await conversation();
    const envelopes = await h.t.db.prisma.envelope.count();
    const cases: [string, string, unknown, number][] = [
      ["an unknown status", `/conversations/${id}`, { status: "closed" }, 400],
      ["an empty body", `/conversations/${id}`, {}, 400],
      [
        "snoozedUntil without snoozed",
        `/conversations/${id}`,
        { status: "resolved", snoozedUntil: new Date(Date.now() + 60_000).toISOString() },
        400,
      ],
      ["snoozedUntil in the past", `/conversations/${id}`, { status: "snoozed", snoozedUntil: "2020-01-01T00:00:00Z" }, 400],
      ["snoozedUntil not a date", `/conversations/${id}`, { status: "snoozed", snoozedUntil: "tomorrow" }, 400],
      ["an assignee who does not exist", `/conversations/${id}`, { assigneeId: 999 }, 400],
      ["an assignee that is not an id", `/conversations/${id}`, { assigneeId: "dana" }, 400],
      ["an unknown key", `/conversations/${id}`, { status: "resolved", by: "mallory" }, 400],
      ["not JSON", `/conversations/${id}`, "{", 400],
      ["a nonexistent conversation", "/conversations/2147483647", { status: "resolved" }, 404],
      ["a blank note", `/conversations/${id}/notes`, { text: "   " }, 400],
      ["a note too long", `/conversations/${id}/notes`, { text: "x".repeat(4001) }, 400],
      ["a note on no conversation", "/conversations/2147483647/notes", { text: "hi" }, 404],
    ];
    for (const [label, path, body, status] of cases) {
      const method = path.endsWith("/notes") ? "POST" : "PATCH";
      const response = await call(method, path, { body });
      expect({ label, status: response.status, message: typeof response.json?.error?.message }).toEqual({
        label,
        status,
        message: "string",
      });
    }
    expect(await conversation()).toMatchObject({ status: before.status, assigneeId: null, snoozedUntil: null });
    expect(await h.t.db.prisma.envelope.count()).toBe(envelopes);
    expect(await h.t.db.prisma.conversationNote.count()).toBe(0);
  });

  it("a session without the CSRF token cannot change a conversation or add a note", async () => {
    const id = await start();
    const dana = await h.t.db.prisma.operator.create({ data: { name: "dana", passwordHash: "scrypt$x$y" } });
    await createSession(h.t.db, {
      operatorId: dana.id,
      token: "session-token",
      csrfToken: "csrf-token",
      expiresAt: new Date(Date.now() + 60_000),
    });
    const cookie = { cookie: `${SESSION_COOKIE}=session-token` };
    expect((await call("PATCH", `/conversations/${id}`, { headers: cookie, body: { status: "resolved" } })).status).toBe(403);
    expect((await call("POST", `/conversations/${id}/notes`, { headers: cookie, body: { text: "x" } })).status).toBe(403);
    expect((await conversation()).status).toBe("open");
    // With it, the session's operator is the author and "mine" is theirs.
    const withCsrf = { ...cookie, [CSRF_HEADER]: "csrf-token" };
    expect((await call("POST", `/conversations/${id}/notes`, { headers: withCsrf, body: { text: "x" } })).json.note).toMatchObject({
      operatorId: dana.id,
      operatorName: "dana",
    });
    expect((await call("PATCH", `/conversations/${id}`, { headers: withCsrf, body: { assigneeId: dana.id } })).status).toBe(200);
    const mine = await call("GET", "/conversations?view=mine", { headers: cookie });
    expect(mine.json.conversations.map((c: { id: number }) => c.id)).toEqual([id]);
    expect(mine.json.counts).toMatchObject({ mine: 1, unassigned: 0, open: 1 });
  });

  it("the user's message reopens a resolved conversation and wakes one snoozed until they write, in the same commit", async () => {
    const id = await start();
    await call("PATCH", `/conversations/${id}`, { body: { status: "resolved" } });
    await h.t.post(update({ text: "actually, one more thing" }));
    await h.t.settle();
    expect(await conversation()).toMatchObject({ status: "open", snoozedUntil: null });

    await call("PATCH", `/conversations/${id}`, { body: { status: "snoozed" } });
    expect((await conversation()).status).toBe("snoozed");
    await h.t.post(update({ text: "still there?" }));
    await h.t.settle();
    expect((await conversation()).status).toBe("open");

    const changes = (await inboxEnvelopes()).map((e) => [e.from, e.text]);
    expect(changes).toEqual([
      ["operator:api", "resolved by api"],
      [`channel:telegram:${alice.id}`, "reopened: the user wrote"],
      ["operator:api", "snoozed until the user writes by api"],
      [`channel:telegram:${alice.id}`, "woke up: the user wrote"],
    ]);
    // A repeated delivery of the same update is a duplicate: it reopens nothing again.
    await call("PATCH", `/conversations/${id}`, { body: { status: "resolved" } });
    const again = update({ text: "one", updateId: 990001 });
    await h.t.post(again);
    await call("PATCH", `/conversations/${id}`, { body: { status: "resolved" } });
    await h.t.post(again);
    await h.t.settle();
    expect((await conversation()).status).toBe("resolved");
  });

  it("a snooze until a time wakes on the worker's housekeeping once the time has come, not before", async () => {
    const id = await start();
    const until = new Date(Date.now() + 3_600_000);
    await call("PATCH", `/conversations/${id}`, { body: { status: "snoozed", snoozedUntil: until.toISOString() } });
    await housekeeping(h.t.app.turnDeps, 10_000, new Date(until.getTime() - 1_000));
    expect((await conversation()).status).toBe("snoozed");
    await housekeeping(h.t.app.turnDeps, 10_000, new Date(until.getTime() + 1_000));
    expect(await conversation()).toMatchObject({ status: "open", snoozedUntil: null });
    expect((await inboxEnvelopes()).at(-1)).toMatchObject({
      text: `woke up: snoozed until ${until.toISOString()}`,
      inbox: { action: "wake", by: "timer" },
    });
  });

  it("taking a handoff assigns the conversation; resolving one that waits for a human ends the handoff", async () => {
    const id = await start();
    const dana = await h.t.db.prisma.operator.create({ data: { name: "dana", passwordHash: "scrypt$x$y" } });
    await createSession(h.t.db, {
      operatorId: dana.id,
      token: "dana-token",
      csrfToken: "dana-csrf",
      expiresAt: new Date(Date.now() + 60_000),
    });
    const asDana = { cookie: `${SESSION_COOKIE}=dana-token`, [CSRF_HEADER]: "dana-csrf" };
    await call("POST", `/conversations/${id}/handoff`, { body: { action: "request", reason: "refund" } });
    expect((await call("GET", "/conversations?view=handoff")).json.counts).toMatchObject({ handoff: 1, unassigned: 1 });
    expect((await call("POST", `/conversations/${id}/handoff`, { headers: asDana, body: { action: "take" } })).status).toBe(200);
    expect(await conversation()).toMatchObject({ handoffState: "assigned", assigneeId: dana.id });
    const take = (await inboxEnvelopes()).at(-1);
    expect(take).toMatchObject({ from: "operator:dana", text: "taken over by dana", inbox: { action: "assign", assigneeId: dana.id } });

    await call("PATCH", `/conversations/${id}`, { headers: asDana, body: { status: "resolved" } });
    expect(await conversation()).toMatchObject({ status: "resolved", handoffState: null, lastHandoffOperator: "dana" });
    expect((await call("GET", "/handoffs")).json.handoffs).toEqual([]);
    // Waiting, not taken: resolving ends it too.
    await call("PATCH", `/conversations/${id}`, { body: { status: "open" } });
    await call("POST", `/conversations/${id}/handoff`, { body: { action: "request", reason: "again" } });
    await call("PATCH", `/conversations/${id}`, { body: { status: "resolved" } });
    expect((await conversation()).handoffState).toBeNull();
  });

  it("the timeline's lines: every status, assignee and handoff change, read from its envelope, in order", async () => {
    const id = await start();
    const bo = await h.t.db.prisma.operator.create({ data: { name: "bo", displayName: "Bo", passwordHash: "scrypt$x$y" } });
    await createSession(h.t.db, { operatorId: bo.id, token: "bo-token", csrfToken: "bo-csrf", expiresAt: new Date(Date.now() + 60_000) });
    const asBo = { cookie: `${SESSION_COOKIE}=bo-token`, [CSRF_HEADER]: "bo-csrf" };
    await call("POST", `/conversations/${id}/handoff`, { body: { action: "request", reason: "refund" } });
    await call("POST", `/conversations/${id}/handoff`, { headers: asBo, body: { action: "take" } });
    await call("PATCH", `/conversations/${id}`, { body: { assigneeId: null } });
    await call("PATCH", `/conversations/${id}`, { body: { assigneeId: bo.id } });
    await call("PATCH", `/conversations/${id}`, { headers: asBo, body: { status: "resolved" } });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await call("PATCH", `/conversations/${id}`, { body: { status: "snoozed", snoozedUntil: until } });
    await h.t.post(update({ text: "any news?" }));
    await h.t.settle();

    const changes = await call("GET", `/conversations/${id}/changes`);
    expect(changes.status).toBe(200);
    const names: Record<string, string> = { bo: "Bo", api: "the API" };
    const lines = changes.json.changes.map((c: StateChange) =>
      describeStateChange(c, { name: (n) => names[n] ?? n, time: (iso) => `T(${iso})` }),
    );
    expect(lines).toEqual([
      "Handed to a human: refund",
      "Bo took over from the agent",
      "the API unassigned this",
      "the API assigned this to Bo",
      "Bo resolved this",
      // Resolving ended the handoff: its record comes with it.
      "Bo handed this back to the agent",
      `the API snoozed this until T(${until})`,
      "Woke up: the user wrote",
    ]);
    const times = changes.json.changes.map((c: { at: string }) => Date.parse(c.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await call("GET", "/conversations/9999/changes")).status).toBe(404);
  });

  it("the automatic 'a person will reply' message is not an answer: the user still waits until someone answers", async () => {
    await h.t.post(update({ text: "/human" }));
    await h.t.settle();
    const waiting = await conversation();
    expect(waiting.handoffState).toBe("waiting");
    const sent = await h.t.db.prisma.message.findMany({ where: { direction: "outbound" } });
    expect(sent.map((m) => m.text)).toEqual(["Thanks — a person from our team will reply here soon."]);
    expect(waiting.waitingSince).not.toBeNull();
    expect((await call("GET", "/conversations?view=all&sort=waiting")).json.conversations[0]).toMatchObject({
      id: waiting.id,
      waitingSince: waiting.waitingSince!.toISOString(),
    });

    expect((await call("POST", `/conversations/${waiting.id}/messages`, { body: { text: "Hi, I am here." } })).status).toBe(201);
    expect((await conversation()).waitingSince).toBeNull();
  });

  it("notes are shown to operators, never sent to the chat, and never in the model's prompt", async () => {
    const id = await start();
    const secret = "NOTE-7731: customer is on the VIP refund list";
    expect((await call("POST", `/conversations/${id}/notes`, { body: { text: secret } })).status).toBe(201);
    h.llm.requests.length = 0;
    await h.t.post(update({ text: "what about my refund?" }));
    await h.t.settle();
    await h.t.post(update({ text: "and the delivery date?" }));
    await h.t.settle();
    expect(h.llm.requests.length).toBeGreaterThanOrEqual(2);
    const prompts = JSON.stringify(h.llm.requests);
    // The model saw this conversation's messages (the check looks at the right requests) but not the note.
    expect(prompts).toContain("what about my refund?");
    expect(prompts).not.toContain("NOTE-7731");
    expect(JSON.stringify(await h.t.db.prisma.turn.findMany())).not.toContain("NOTE-7731");
    expect(JSON.stringify(h.telegram.calls)).not.toContain("NOTE-7731");
    expect((await call("GET", `/conversations/${id}/notes`)).json.notes).toMatchObject([{ text: secret, operatorName: "api" }]);
  });

  it("saved replies expand for the conversation's user; the team's are shared, one's own stay one's own", async () => {
    await h.t.post(update({ chat: group, from: { id: 77, first_name: "Bob", last_name: "Marley", username: "bob" }, text: "hi all" }));
    await h.t.settle();
    const id = (await conversation()).id;
    const created = await call("POST", "/saved-replies", {
      body: { shortcut: "Thanks", text: "Thanks {{first_name}}, we are on it ({{name}})." },
    });
    expect(created.status).toBe(201);
    expect(created.json.savedReply).toMatchObject({ shortcut: "thanks", scope: "team" });
    const listed = await call("GET", `/saved-replies?search=%2Fth&conversationId=${id}`);
    expect(listed.json.savedReplies).toMatchObject([{ shortcut: "thanks", expanded: "Thanks Bob, we are on it (Bob Marley)." }]);
    expect((await call("POST", "/saved-replies", { body: { shortcut: "thanks", text: "again" } })).status).toBe(409);
    expect((await call("POST", "/saved-replies", { body: { shortcut: "x", text: "Hi {{firstname}}" } })).status).toBe(400);
    expect((await call("POST", "/saved-replies", { body: { shortcut: "has space", text: "x" } })).status).toBe(400);
    expect((await call("POST", "/saved-replies", { body: { shortcut: "mine", text: "x", scope: "personal" } })).status).toBe(400);

    // Dana's own reply: hers only; Eve sees the team's and cannot change Dana's.
    const [dana, eve] = await Promise.all(
      ["dana", "eve"].map((n) => h.t.db.prisma.operator.create({ data: { name: n, passwordHash: "scrypt$x$y" } })),
    );
    for (const [op, token] of [
      [dana, "d"],
      [eve, "e"],
    ] as const)
      await createSession(h.t.db, { operatorId: op.id, token, csrfToken: `${token}-csrf`, expiresAt: new Date(Date.now() + 60_000) });
    const as = (token: string) => ({ cookie: `${SESSION_COOKIE}=${token}`, [CSRF_HEADER]: `${token}-csrf` });
    const own = await call("POST", "/saved-replies", {
      headers: as("d"),
      body: { shortcut: "bye", text: "Bye {{first_name}}", scope: "personal" },
    });
    expect(own.json.savedReply).toMatchObject({ scope: "personal", createdBy: "dana" });
    expect((await call("GET", "/saved-replies", { headers: as("d") })).json.savedReplies.map((r: any) => r.shortcut)).toEqual([
      "bye",
      "thanks",
    ]);
    expect((await call("GET", "/saved-replies", { headers: as("e") })).json.savedReplies.map((r: any) => r.shortcut)).toEqual(["thanks"]);
    expect((await call("PATCH", `/saved-replies/${own.json.savedReply.id}`, { headers: as("e"), body: { text: "mine now" } })).status).toBe(
      404,
    );
    expect((await call("DELETE", `/saved-replies/${own.json.savedReply.id}`, { headers: as("e") })).status).toBe(404);
    expect((await call("DELETE", `/saved-replies/${own.json.savedReply.id}`, { headers: as("d") })).status).toBe(200);
    expect(await h.t.db.prisma.savedReply.count()).toBe(1);
  });

  it("% and _ typed in the list filter and the saved-reply search are letters, not wildcards", async () => {
    await h.t.post(update({ chat: { id: 601, type: "private" }, from: { id: 601, first_name: "Pct" }, text: "a" }));
    await h.t.post(update({ chat: { id: 602, type: "private" }, from: { id: 602, first_name: "Plain" }, text: "b" }));
    await h.t.post(update({ chat: { id: 603, type: "private" }, from: { id: 603, first_name: "Under" }, text: "c" }));
    await h.t.settle();
    const [pct, plain, under] = await h.t.db.prisma.conversation.findMany({ orderBy: { id: "asc" } });
    await h.t.db.prisma.conversation.update({ where: { id: pct!.id }, data: { title: "Promo 50% off" } });
    await h.t.db.prisma.conversation.update({ where: { id: plain!.id }, data: { title: "Promo 500 off" } });
    await h.t.db.prisma.conversation.update({ where: { id: under!.id }, data: { title: "ticket a_b" } });
    const found = async (search: string) =>
      (await call("GET", `/conversations?view=all&search=${encodeURIComponent(search)}`)).json.conversations.map(
        (c: { id: number }) => c.id,
      );
    expect(await found("50%")).toEqual([pct!.id]);
    expect(await found("%")).toEqual([pct!.id]);
    expect(await found("a_b")).toEqual([under!.id]);
    expect(await found("_")).toEqual([under!.id]);
    expect(await found("50\\")).toEqual([]);
    expect(await found("Promo 50")).toHaveLength(2);

    for (const [shortcut, text] of [
      ["pct", "a full 100% refund"],
      ["plain", "a full 1000 refund"],
      ["under", "see file_name"],
      ["under_score", "x"],
      ["underXscore", "y"],
    ])
      expect((await call("POST", "/saved-replies", { body: { shortcut, text } })).status).toBe(201);
    const replies = async (search: string) =>
      (await call("GET", `/saved-replies?search=${encodeURIComponent(search)}`)).json.savedReplies.map(
        (r: { shortcut: string }) => r.shortcut,
      );
    expect(await replies("100%")).toEqual(["pct"]);
    expect(await replies("file_")).toEqual(["under"]);
    expect(await replies("under_")).toEqual(["under_score"]);
    expect(await replies("%")).toEqual(["pct"]);
  });

  it("the contact panel: who the user is, their language, when they were seen, and the groups they wrote in", async () => {
    const bob = { id: 78, first_name: "Bob", last_name: "Marley", username: "bob", language_code: "pt-BR" } as never;
    await h.t.post(update({ chat: group, from: bob, text: "hi all", date: Math.floor(Date.now() / 1000) - 3_600 }));
    await h.t.post(update({ chat: { id: 78, type: "private" }, from: bob, text: "hello in private" }));
    await h.t.settle();
    const [groupChat, privateChat] = await h.t.db.prisma.conversation.findMany({ orderBy: { id: "asc" } });
    await call("POST", `/conversations/${privateChat.id}/notes`, { body: { text: "prefers Portuguese" } });
    const { json } = await call("GET", `/conversations/${privateChat.id}/contact`);
    expect(json.contact).toMatchObject({
      name: "Bob Marley",
      username: "bob",
      channel: "telegram",
      platformUserId: "78",
      language: "pt-BR",
    });
    expect(new Date(json.contact.firstSeen).getTime()).toBeLessThan(new Date(json.contact.lastSeen).getTime() - 3_000_000);
    expect(json.contact.otherConversations).toMatchObject([{ id: groupChat.id, title: group.title, type: "supergroup", messages: 1 }]);
    expect(json.notes).toMatchObject([{ text: "prefers Portuguese" }]);
    expect((await call("GET", "/conversations/2147483647/contact")).status).toBe(404);
  });

  it("views, counts and sort by waiting time", async () => {
    await h.t.post(
      update({
        chat: { id: 501, type: "private" },
        from: { id: 501, first_name: "Old" },
        text: "first",
        date: Math.floor(Date.now() / 1000) - 600,
      }),
    );
    await h.t.settle();
    await h.t.post(update({ chat: { id: 502, type: "private" }, from: { id: 502, first_name: "New" }, text: "second" }));
    await h.t.settle();
    const [a, b] = await h.t.db.prisma.conversation.findMany({ orderBy: { id: "asc" } });
    // Both were answered by the model; a new message makes `a` wait again, after `b`'s last activity.
    expect(a.waitingSince).toBeNull();
    await h.t.post(update({ chat: { id: 501, type: "private" }, from: { id: 501, first_name: "Old" }, text: "hello?" }));
    expect((await h.t.db.prisma.conversation.findUniqueOrThrow({ where: { id: a.id } })).waitingSince).not.toBeNull();
    await h.t.settle();
    await call("PATCH", `/conversations/${b.id}`, { body: { status: "resolved" } });
    const open = await call("GET", "/conversations?view=open");
    expect(open.json.conversations.map((c: { id: number }) => c.id)).toEqual([a.id]);
    expect(open.json.counts).toEqual({ all: 2, open: 1, mine: 0, unassigned: 1, handoff: 0, resolved: 1, snoozed: 0 });
    expect((await call("GET", "/conversations?view=resolved")).json.conversations.map((c: { id: number }) => c.id)).toEqual([b.id]);
    expect((await call("GET", "/conversations?view=nope")).status).toBe(400);
    // Waiting: a conversation whose user waits comes before one that was answered.
    await h.t.db.prisma.conversation.update({ where: { id: b.id }, data: { waitingSince: new Date(Date.now() - 3_600_000) } });
    const waiting = await call("GET", "/conversations?view=all&sort=waiting");
    expect(waiting.json.conversations.map((c: { id: number }) => c.id)).toEqual([b.id, a.id]);
  });

  it("exports a conversation as JSON and as text, and the list as CSV guarded against formulas", async () => {
    await h.t.post(
      update({ chat: { id: 601, type: "private" }, from: { id: 601, first_name: '=HYPERLINK("x")' }, text: "=1+1, @SUM(A1)" }),
    );
    await h.t.settle();
    const id = (await conversation()).id;
    await call("POST", `/conversations/${id}/notes`, { body: { text: "checked the tracking" } });
    await call("PATCH", `/conversations/${id}`, { body: { agentEnabled: false } });
    await h.t.post(update({ chat: { id: 601, type: "private" }, from: { id: 601, first_name: '=HYPERLINK("x")' }, text: "-2+3" }));
    await call("PATCH", `/conversations/${id}`, { body: { status: "resolved" } });

    const json = await call("GET", `/conversations/${id}/export`);
    expect(json.headers.get("content-disposition")).toContain(`conversation-${id}.json`);
    expect(json.json.messages.map((m: { text: string }) => m.text)).toEqual(["=1+1, @SUM(A1)", "Happy to help", "-2+3"]);
    expect(json.json.notes).toMatchObject([{ text: "checked the tracking" }]);
    expect(json.json.envelopes.some((e: { text: string }) => e.text === "resolved by api")).toBe(true);

    // A bare carriage return cannot start a forged line in editors that break lines at CR.
    await call("POST", `/conversations/${id}/notes`, { body: { text: "ok\r[2026-11-25 11:57:00Z] adm2: refund approved" } });
    const text = await call("GET", `/conversations/${id}/export?format=text`);
    expect(text.text).not.toMatch(/[\r\n]\[2026-11-25 11:57:00Z\] adm2/);
    expect(text.text).toContain("ok\n    [2026-11-25 11:57:00Z] adm2: refund approved");
    expect(text.headers.get("content-type")).toContain("text/plain");
    expect(text.text).toMatch(/\] =HYPERLINK\("x"\): =1\+1, @SUM\(A1\)\n/);
    expect(text.text).toMatch(/\] NOTE by api: checked the tracking\n/);
    expect(text.text).toMatch(/\] — resolved by api\n/);
    expect((await call("GET", `/conversations/${id}/export?format=pdf`)).status).toBe(400);

    const csv = await call("GET", "/conversations/export?view=resolved");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const [header, row] = csv.text.trim().split("\r\n");
    expect(header).toContain("id,channel,chat id");
    // The user's name and last message start with = and -: each cell gets a leading quote.
    expect(row).toMatch(/,'-2\+3$/);
    expect(row).toContain(`"'=HYPERLINK(""x"")"`);
    expect(row).toContain(",resolved,");
    expect((await call("GET", "/conversations/export?view=open")).text.trim().split("\r\n")).toHaveLength(1);

    // The agent answered last: the CSV names the bot as the console does, never by the internal agent name.
    await h.t.post(update({ chat: { id: 602, type: "private" }, from: { id: 602, first_name: "Ola" }, text: "hello" }));
    await h.t.settle();
    const identity = h.t.app.telegram.identityState();
    const bot = identity.state === "ready" ? `${identity.identity.username} (bot)` : "the bot";
    const [, answered] = (await call("GET", "/conversations/export?view=open")).text.trim().split("\r\n");
    expect(answered).toContain(`,${bot},Happy to help`);
    expect(answered).not.toContain(",main,");

    // Another bot's conversation names that bot, not the environment's.
    const db = h.t.db.prisma;
    const bravo = await db.bot.create({
      data: { platform: "telegram", source: "api", adapter: "telegram-77", name: "Bravo", username: "bravo_help_bot" },
    });
    const theirs = await db.conversation.create({
      data: { channel: bravo.adapter, botId: bravo.id, platformChatId: "603", type: "private", lastMessageAt: new Date() },
    });
    await db.message.create({
      data: { conversationId: theirs.id, direction: "outbound", senderKind: "agent", text: "Bravo answers", sentAt: new Date() },
    });
    const rows = (await call("GET", "/conversations/export?view=open")).text.trim().split("\r\n");
    expect(rows.find((r) => r.startsWith(`${theirs.id},`))).toContain(",bravo_help_bot (bot),Bravo answers");
    expect(rows.filter((r) => r.includes(`,${bot},`))).toHaveLength(1);
  });

  if (name === "sqlite" && !hasPostgres) it.skipIf(!hasPostgres)(`PostgreSQL variant: ${POSTGRES_SKIP_REASON}`, () => {});
});
