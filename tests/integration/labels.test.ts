import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { POST as acceptRoute } from "@/app/api/auth/invitation/route";
import { POST as loginRoute } from "@/app/api/auth/login/route";
import { GET as changesRoute } from "@/app/api/v1/conversations/[id]/changes/route";
import { GET as exportRoute } from "@/app/api/v1/conversations/[id]/export/route";
import { GET as conversationRoute, PATCH as conversationPatchRoute } from "@/app/api/v1/conversations/[id]/route";
import { GET as csvRoute } from "@/app/api/v1/conversations/export/route";
import { GET as listRoute } from "@/app/api/v1/conversations/route";
import { DELETE as labelDeleteRoute, PATCH as labelPatchRoute } from "@/app/api/v1/labels/[id]/route";
import { GET as labelsRoute, POST as labelCreateRoute } from "@/app/api/v1/labels/route";
import { PATCH as patchOperatorRoute } from "@/app/api/v1/operators/[id]/route";
import { POST as inviteRoute } from "@/app/api/v1/operators/route";
import { operations } from "@/lib/api/operations";
import { hashPassword } from "@/lib/auth/password";
import { describeStateChange } from "@/app/(dashboard)/_lib/state-change";
import { readEnvelopeMetadata } from "@/lib/db/envelope-metadata";
import { createFirstOperator } from "@/lib/db/operators";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "labels-test-token-0123456789";
type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
type Session = { cookie: string; csrf: string };
type Reply = { status: number; body: any; text: string; response: Response };

/** Calls a route as Next does, at its real path, with a session (CSRF header on mutations unless `noCsrf`) or the token. */
async function call(
  handler: unknown,
  path: string,
  options: { method?: string; session?: Session; token?: string; body?: unknown; id?: number; noCsrf?: boolean } = {},
): Promise<Reply> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { ...(options.body !== undefined ? { "content-type": "application/json" } : {}) };
  if (options.session) {
    headers.cookie = options.session.cookie;
    if (method !== "GET" && !options.noCsrf) headers["x-csrf-token"] = options.session.csrf;
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const request = new Request(`http://localhost${path}`, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const response = await (handler as Handler)(request, {
    params: Promise.resolve(options.id !== undefined ? { id: String(options.id) } : {}),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body, text, response };
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

/**
 * Labels and priority through the real route handlers: admins define labels, any
 * operator who may see a conversation tags it and sets its priority (each change a
 * line in its history), and the list filters, counts and sorts by them.
 */
describe.each(databases)("labels and priority on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  /** Two bots with one conversation each (b the older), an admin and an agent (bob). */
  async function seed() {
    const db = app.t.db.prisma;
    const alpha = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-911", name: "Alpha" } });
    const bravo = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-912", name: "Bravo" } });
    const conversation = (bot: { id: number; adapter: string }, chat: string, at: Date) =>
      db.conversation.create({
        data: { channel: bot.adapter, botId: bot.id, platformChatId: chat, type: "private", title: `chat ${chat}`, lastMessageAt: at },
      });
    const a = await conversation(alpha, "8101", new Date());
    const b = await conversation(bravo, "8102", new Date(Date.now() - 60_000));

    await createFirstOperator(app.t.db, { name: "root", passwordHash: await hashPassword("root-password-123") });
    const login = await call(loginRoute, "/api/auth/login", { method: "POST", body: { name: "root", password: "root-password-123" } });
    const admin = sessionOf(login.response);
    const invited = await call(inviteRoute, "/api/v1/operators", { method: "POST", session: admin, body: { role: "agent" } });
    const accepted = await call(acceptRoute, "/api/auth/invitation", {
      method: "POST",
      body: { token: invited.body.token, name: "bob", password: "bob-password-12" },
    });
    expect(accepted.status).toBe(201);
    return { alpha, bravo, a, b, admin, bob: sessionOf(accepted.response), bobId: accepted.body.operator.id as number };
  }

  const createLabel = (session: Session, body: unknown) => call(labelCreateRoute, "/api/v1/labels", { method: "POST", session, body });
  const patch = (session: Session, id: number, body: unknown) =>
    call(conversationPatchRoute, `/api/v1/conversations/${id}`, { method: "PATCH", session, body, id });
  const list = (session: Session, query = "") => call(listRoute, `/api/v1/conversations${query}`, { session });
  const ids = (reply: Reply) => (reply.body.conversations as { id: number }[]).map((c) => c.id);

  it("admins define labels: unique ignoring case, names and colors checked; agents may only read them", async () => {
    const s = await seed();
    const billing = await createLabel(s.admin, { name: "  Billing ", color: "#AABBCC" });
    expectDocumented("post", "/labels", billing);
    expect(billing.body.label).toMatchObject({ name: "Billing", color: "#aabbcc" });
    const vip = await createLabel(s.admin, { name: "vip" });
    expect(vip.body.label.color).toMatch(/^#[0-9a-f]{6}$/);

    expect((await createLabel(s.admin, { name: "BILLING" })).status).toBe(409);
    // Look-alikes: one spelling per name, and no invisible characters.
    expect((await createLabel(s.admin, { name: "café" })).status).toBe(201);
    expect((await createLabel(s.admin, { name: "cafe\u0301" })).status).toBe(409);
    for (const name of ["bill\u200Bing", "x\u202Ey", "v\uFEFFip"]) expect((await createLabel(s.admin, { name })).status).toBe(400);
    for (const bad of [
      { name: "   " },
      { name: "x".repeat(41) },
      { name: "bad\u0007name" },
      { name: "ok", color: "red" },
      { color: "#aabbcc" },
    ])
      expect({ bad, status: (await createLabel(s.admin, bad)).status }).toEqual({ bad, status: 400 });
    expect((await createLabel(s.admin, { name: "ünïcødé ".repeat(5).trim() })).status).toBe(201); // 39 characters, more bytes

    // Agents: read yes, manage no; a session's mutation needs its CSRF header.
    const read = await call(labelsRoute, "/api/v1/labels", { session: s.bob });
    expectDocumented("get", "/labels", read);
    expect(read.body.labels.map((l: { name: string }) => l.name).sort()).toEqual([
      "Billing",
      "café",
      "vip",
      "ünïcødé ünïcødé ünïcødé ünïcødé ünïcødé",
    ]);
    expect((await createLabel(s.bob, { name: "mine" })).status).toBe(403);
    const id = billing.body.label.id;
    expect((await call(labelPatchRoute, `/api/v1/labels/${id}`, { method: "PATCH", session: s.bob, body: { name: "x" }, id })).status).toBe(
      403,
    );
    expect((await call(labelDeleteRoute, `/api/v1/labels/${id}`, { method: "DELETE", session: s.bob, id })).status).toBe(403);
    expect(
      (await call(labelCreateRoute, "/api/v1/labels", { method: "POST", session: s.admin, body: { name: "nocsrf" }, noCsrf: true })).status,
    ).toBe(403);

    // Rename (another label's name, in any case, is taken), recolor, unknown ids.
    const taken = await call(labelPatchRoute, `/api/v1/labels/${id}`, { method: "PATCH", session: s.admin, body: { name: "VIP" }, id });
    expect(taken.status).toBe(409);
    const renamed = await call(labelPatchRoute, `/api/v1/labels/${id}`, {
      method: "PATCH",
      session: s.admin,
      body: { name: "billing", color: "#112233" },
      id,
    });
    expectDocumented("patch", "/labels/{id}", renamed);
    expect(renamed.body.label).toEqual({ id, name: "billing", color: "#112233" });
    expect(
      (await call(labelPatchRoute, "/api/v1/labels/999999", { method: "PATCH", session: s.admin, body: { name: "y" }, id: 999999 })).status,
    ).toBe(404);
    expect((await call(labelDeleteRoute, "/api/v1/labels/999999", { method: "DELETE", session: s.admin, id: 999999 })).status).toBe(404);
    expect(await app.t.db.prisma.label.count()).toBe(4);
  });

  it("operators tag conversations and set priority: lines in the timeline, filters, counts, sort, exports", async () => {
    const s = await seed();
    for (const name of ["billing", "vip", "spam"]) expect((await createLabel(s.admin, { name })).status).toBe(201);

    const tagged = await patch(s.bob, s.a.id, { labels: ["Billing", "vip"], priority: "urgent" });
    expectDocumented("patch", "/conversations/{id}", tagged);
    expect(tagged.body.conversation).toMatchObject({ labels: ["billing", "vip"], priority: "urgent" });
    const got = await call(conversationRoute, `/api/v1/conversations/${s.a.id}`, { session: s.bob, id: s.a.id });
    expect(got.body.conversation).toMatchObject({ labels: ["billing", "vip"], priority: "urgent" });

    // The same again records nothing; a change of set records what went on and off.
    await patch(s.bob, s.a.id, { labels: ["vip", "billing"], priority: "urgent" });
    await patch(s.admin, s.a.id, { labels: ["billing", "spam"] });
    const changes = await call(changesRoute, `/api/v1/conversations/${s.a.id}/changes`, { session: s.bob, id: s.a.id });
    expectDocumented("get", "/conversations/{id}/changes", changes);
    expect(
      changes.body.changes.map((c: any) => ({
        action: c.action,
        by: c.by,
        priority: c.priority,
        added: c.labelsAdded,
        removed: c.labelsRemoved,
      })),
    ).toEqual([
      { action: "priority", by: "bob", priority: "urgent", added: [], removed: [] },
      { action: "label", by: "bob", priority: null, added: ["billing", "vip"], removed: [] },
      { action: "label", by: "root", priority: null, added: ["spam"], removed: ["vip"] },
    ]);
    // The timeline's lines for them.
    expect(changes.body.changes.map((c: any) => describeStateChange(c, { name: (n) => n.toUpperCase(), time: (iso) => iso }))).toEqual([
      "BOB set the priority to urgent",
      "BOB labelled this “billing”, “vip”",
      "ROOT labelled this “spam”, removed the label “vip”",
    ]);
    const records = await app.t.db.prisma.envelope.findMany({ where: { conversationId: s.a.id }, orderBy: { id: "asc" } });
    expect(records.map((e) => [e.from, e.to, e.status, e.text, readEnvelopeMetadata(e.metadata).inbox?.action])).toEqual([
      ["operator:bob", "operator:inbox", "done", "priority urgent by bob", "priority"],
      ["operator:bob", "operator:inbox", "done", "labels +billing +vip by bob", "label"],
      ["operator:root", "operator:inbox", "done", "labels +spam -vip by root", "label"],
    ]);

    // Bad input: a 400 that writes nothing.
    const before = await app.t.db.prisma.envelope.count();
    for (const body of [{ labels: ["billing", "nosuch"] }, { priority: "critical" }, { labels: "billing" }, { labels: [""] }]) {
      const reply = await patch(s.bob, s.a.id, body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
    }
    expect((await patch(s.bob, s.a.id, { labels: ["nosuch"] })).body.error.message).toContain("nosuch");
    expect(await app.t.db.prisma.envelope.count()).toBe(before);
    expect(
      (await call(conversationRoute, `/api/v1/conversations/${s.a.id}`, { session: s.bob, id: s.a.id })).body.conversation.labels,
    ).toEqual(["billing", "spam"]);

    // b: billing, high. The list filters by label (any case) and priority, counts within the filter, sorts by priority.
    await patch(s.admin, s.b.id, { labels: ["billing"], priority: "high" });
    const all = await list(s.admin);
    expectDocumented("get", "/conversations", all);
    expect(ids(all)).toEqual([s.a.id, s.b.id]);
    expect(all.body.conversations.map((c: any) => [c.labels, c.priority])).toEqual([
      [["billing", "spam"], "urgent"],
      [["billing"], "high"],
    ]);
    expect(all.body.labels.map((l: any) => [l.name, l.conversations])).toEqual([
      ["billing", 2],
      ["spam", 1],
      ["vip", 0],
    ]);
    expect(ids(await list(s.admin, "?label=SPAM"))).toEqual([s.a.id]);
    expect(ids(await list(s.admin, "?label=billing&priority=high"))).toEqual([s.b.id]);
    expect(ids(await list(s.admin, "?priority=low"))).toEqual([]);
    expect((await list(s.admin, "?label=vip")).body.counts).toMatchObject({ all: 0, open: 0, unassigned: 0 });
    expect((await list(s.admin, "?label=billing&priority=urgent&view=unassigned")).body.counts).toMatchObject({ all: 1, unassigned: 1 });
    expect(ids(await list(s.admin, "?label=billing&priority=urgent&view=unassigned"))).toEqual([s.a.id]);
    expect((await list(s.admin, "?label=nosuch")).status).toBe(400);
    expect((await list(s.admin, "?priority=critical")).status).toBe(400);
    await patch(s.admin, s.a.id, { priority: "low" });
    expect(ids(await list(s.admin))).toEqual([s.a.id, s.b.id]);
    expect(ids(await list(s.admin, "?sort=priority"))).toEqual([s.b.id, s.a.id]);
    expect(ids(await list(s.admin, "?sort=priority&search=chat"))).toEqual([s.b.id, s.a.id]);

    // Exports carry them.
    const csv = await call(csvRoute, "/api/v1/conversations/export?sort=priority", { session: s.admin });
    expect(csv.status).toBe(200);
    const [header, first, second] = csv.text.trim().split("\r\n");
    const col = header!.split(",");
    const cells = (line: string) => line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ""));
    expect(col).toEqual(expect.arrayContaining(["priority", "labels"]));
    expect([cells(first!)[col.indexOf("priority")], cells(first!)[col.indexOf("labels")]]).toEqual(["high", "billing"]);
    expect([cells(second!)[col.indexOf("priority")], cells(second!)[col.indexOf("labels")]]).toEqual(["low", "billing; spam"]);
    const json = await call(exportRoute, `/api/v1/conversations/${s.a.id}/export`, { session: s.admin, id: s.a.id });
    expect(json.body.conversation).toMatchObject({ priority: "low", labels: ["billing", "spam"] });
    const text = await call(exportRoute, `/api/v1/conversations/${s.a.id}/export?format=text`, { session: s.admin, id: s.a.id });
    expect(text.text).toContain("Labels: billing, spam");
    expect(text.text).toContain("— labels +spam -vip by root");

    // A deleted label leaves every conversation; a renamed one shows its new name.
    const labels = (await call(labelsRoute, "/api/v1/labels", { session: s.admin })).body.labels as { id: number; name: string }[];
    const billing = labels.find((l) => l.name === "billing")!;
    const spam = labels.find((l) => l.name === "spam")!;
    await call(labelPatchRoute, `/api/v1/labels/${spam.id}`, { method: "PATCH", session: s.admin, body: { name: "Junk" }, id: spam.id });
    const deleted = await call(labelDeleteRoute, `/api/v1/labels/${billing.id}`, { method: "DELETE", session: s.admin, id: billing.id });
    expectDocumented("delete", "/labels/{id}", deleted);
    expect((await list(s.admin)).body.conversations.map((c: any) => c.labels)).toEqual([["Junk"], []]);
    expect(await app.t.db.prisma.conversationLabel.count()).toBe(1);
    expect((await list(s.admin, "?label=billing")).status).toBe(400);
  });

  it("label changes sent at once never merge: one wins, the others are a 409, and the history says what happened", async () => {
    const s = await seed();
    const names = ["one", "two", "three", "four"];
    for (const name of names) expect((await createLabel(s.admin, { name })).status).toBe(201);
    // Each operator's page sends the whole set it shows: here, one label each, all read from the same empty set.
    const replies = await Promise.all(names.map((name, i) => patch(i % 2 ? s.bob : s.admin, s.a.id, { labels: [name] })));
    const won = names.filter((_, i) => replies[i].status === 200);
    expect(replies.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(won.length).toBeGreaterThanOrEqual(1);
    const after = await call(conversationRoute, `/api/v1/conversations/${s.a.id}`, { session: s.admin, id: s.a.id });
    // The conversation carries exactly one requested set, never a union of several.
    expect(won.map((name) => [name])).toContainEqual(after.body.conversation.labels);
    // The history holds one line per change that was written, each adding what it says.
    const changes = await call(changesRoute, `/api/v1/conversations/${s.a.id}/changes`, { session: s.admin, id: s.a.id });
    const labelChanges = (changes.body.changes as { action: string; labelsAdded?: string[]; labelsRemoved?: string[] }[]).filter(
      (c) => c.action === "label",
    );
    expect(labelChanges).toHaveLength(won.length);
    expect(labelChanges.at(-1)).toMatchObject({ labelsAdded: after.body.conversation.labels });
  });

  it("an agent limited to some bots tags only their conversations (404 otherwise) and counts only theirs", async () => {
    const s = await seed();
    expect((await createLabel(s.admin, { name: "billing" })).status).toBe(201);
    const limited = await call(patchOperatorRoute, `/api/v1/operators/${s.bobId}`, {
      method: "PATCH",
      session: s.admin,
      body: { botIds: [s.alpha.id] },
      id: s.bobId,
    });
    expect(limited.status).toBe(200);

    expect((await patch(s.bob, s.a.id, { labels: ["billing"], priority: "medium" })).status).toBe(200);
    const other = await patch(s.bob, s.b.id, { labels: ["billing"], priority: "urgent" });
    expect(other.status).toBe(404);
    expect(await app.t.db.prisma.conversation.findUniqueOrThrow({ where: { id: s.b.id } })).toMatchObject({ priority: "none" });
    expect(await app.t.db.prisma.conversationLabel.count({ where: { conversationId: s.b.id } })).toBe(0);
    expect((await call(changesRoute, `/api/v1/conversations/${s.b.id}/changes`, { session: s.bob, id: s.b.id })).status).toBe(404);

    // The admin tags b: bob's counts and filters still see only a.
    expect((await patch(s.admin, s.b.id, { labels: ["billing"] })).status).toBe(200);
    const bobs = await list(s.bob, "?label=billing");
    expect(ids(bobs)).toEqual([s.a.id]);
    expect(bobs.body.labels).toEqual([expect.objectContaining({ name: "billing", conversations: 1 })]);
    expect(bobs.body.counts.all).toBe(1);
    const token = await call(listRoute, "/api/v1/conversations?label=billing", { token: TOKEN });
    expect(ids(token).sort()).toEqual([s.a.id, s.b.id].sort());
  });
});
