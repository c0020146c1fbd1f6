import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { useHarness } from "../helpers/harness";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "hostile-input-token-0123456789";
type Handler = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Case = [routeFile: string, method: "GET" | "POST" | "PATCH", url: string, body?: unknown, params?: Record<string, string>];

/**
 * What PostgreSQL refuses (U+0000 in text), what reads JavaScript's own object
 * machinery (agent:constructor) and what nests without bound: each a 400 with a
 * sentence, on both databases, and nothing written.
 */
describe.each(databases)("hostile operator input ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  async function call([routeFile, method, url, body, params = {}]: Case) {
    const route = (await import(resolve("app/api/v1", routeFile))) as Record<string, Handler>;
    const request = new Request(`http://localhost/api/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const response = await route[method](request, { params: Promise.resolve(params) });
    return { status: response.status, body: (await response.json()) as { error?: { message?: string } } };
  }

  async function seeded() {
    const conversation = await app.t.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "7", type: "private" } });
    const message = await app.t.db.prisma.message.create({
      data: {
        conversationId: conversation.id,
        platformMessageId: "1",
        direction: "inbound",
        senderKind: "user",
        senderName: "Ann",
        text: "hi",
        sentAt: new Date(),
      },
    });
    return { conversation, message };
  }

  async function expectAll400(cases: Case[], messagePattern: RegExp) {
    const seen = [];
    for (const c of cases) {
      const response = await call(c);
      seen.push({ url: c[2], status: response.status, message: response.body.error?.message ?? "" });
    }
    expect(seen).toEqual(cases.map((c) => ({ url: c[2], status: 400, message: expect.stringMatching(messagePattern) })));
  }

  it("a NUL character in any operator input is a 400 that says so", async () => {
    const { conversation, message } = await seeded();
    const c = String(conversation.id);
    const NUL = "a\u0000b";
    const q = encodeURIComponent(NUL);
    await expectAll400(
      [
        ["envelopes/route.ts", "GET", `/envelopes?to=${q}`],
        ["envelopes/route.ts", "GET", `/envelopes?from=${q}`],
        ["envelopes/route.ts", "GET", `/envelopes?address=${q}`],
        ["conversations/route.ts", "GET", `/conversations?search=${q}`],
        ["messages/[id]/reply/route.ts", "POST", `/messages/${message.id}/reply`, { text: NUL }, { id: String(message.id) }],
        ["conversations/[id]/messages/route.ts", "POST", `/conversations/${c}/messages`, { text: NUL }, { id: c }],
        ["conversations/[id]/handoff/route.ts", "POST", `/conversations/${c}/handoff`, { action: "request", reason: NUL }, { id: c }],
        ["forks/route.ts", "POST", "/forks", { conversationId: conversation.id, task: NUL }],
        ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:main", text: "hi", metadata: { note: NUL } }],
        ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:main", text: NUL }],
        ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:main", text: "hi", metadata: { [NUL]: 1 } }],
        ["settings/route.ts", "PATCH", "/settings", { agentInstructions: NUL }],
        ["settings/route.ts", "PATCH", "/settings", { handoffWaitingMessage: NUL }],
      ],
      /NUL character/,
    );
    expect(await app.t.db.prisma.envelope.count()).toBe(0);
    expect(await app.t.db.prisma.fork.count()).toBe(0);
    expect(await app.t.db.prisma.setting.count()).toBe(0);
    expect(await app.t.db.prisma.message.count()).toBe(1);
    expect(app.telegram.sends()).toEqual([]);
  });

  it("agent names that are JavaScript's own (constructor, __proto__) are refused in addresses and settings", async () => {
    await expectAll400(
      [
        ["envelopes/route.ts", "POST", "/envelopes", { from: "agent:constructor", to: "channel:telegram:7", text: "hi" }],
        ["envelopes/route.ts", "POST", "/envelopes", { from: "agent:__proto__", to: "channel:telegram:7", text: "hi" }],
        ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:constructor", text: "hi" }],
        ["envelopes/route.ts", "POST", "/envelopes/receive", { to: "agent:__proto__" }],
        ["settings/route.ts", "PATCH", "/settings", { agentName: "constructor" }],
        ["settings/route.ts", "PATCH", "/settings", { agentName: "__proto__" }],
        ["settings/route.ts", "PATCH", "/settings", '{"agentBindings": {"__proto__": ["telegram"]}}'],
        ["settings/route.ts", "PATCH", "/settings", { agentBindings: { constructor: ["telegram"] } }],
      ],
      /reserved|invalid/,
    );
    expect(await app.t.db.prisma.envelope.count()).toBe(0);
    expect(await app.t.db.prisma.setting.count()).toBe(0);
    // An ordinary agent that is not bound to the adapter is still a 403, not a 500.
    await seeded();
    const unbound = await call([
      "envelopes/route.ts",
      "POST",
      "/envelopes",
      { from: "agent:helper", to: "channel:telegram:7", text: "hi" },
    ]);
    expect(unbound.status).toBe(403);
  });

  it("envelope metadata nested 5,000 levels deep is a 400", async () => {
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const body = `{"from":"operator:op","to":"agent:main","text":"hi","metadata":${deep}}`;
    const response = await call(["envelopes/route.ts", "POST", "/envelopes", body]);
    expect(response.status).toBe(400);
    expect(response.body.error?.message).toMatch(/nested deeper than 32 levels/);
    // A few levels, as clients send, are fine.
    const shallow = await call([
      "envelopes/route.ts",
      "POST",
      "/envelopes",
      { from: "operator:op", to: "agent:main", text: "hi", metadata: { a: { b: { c: [1, { d: "e" }] } } } },
    ]);
    expect(shallow.status).toBe(201);
    expect(await app.t.db.prisma.envelope.count()).toBe(1);
  });
});

describe.each(databases)("first-run setup through its route ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });
  const setup = async (body: Record<string, string>) => {
    const { POST } = (await import(resolve("app/api/auth/setup/route.ts"))) as Record<string, Handler>;
    const response = await POST(
      new Request("http://localhost/api/auth/setup", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://localhost", host: "localhost" },
        body: JSON.stringify(body),
      }),
      { params: Promise.resolve({}) },
    );
    return { status: response.status, body: (await response.json()) as { error?: { message?: string; details?: { message: string }[] } } };
  };

  it("checks the code before the password: a wrong code is a wrong code, whatever else is wrong", async () => {
    const wrong = await setup({ name: "eve", password: "short", code: "AAAAA-BBBBB-CCCCC" });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error?.message).toMatch(/wrong setup code/);
    const badName = await setup({ name: "no spaces allowed", password: "short", code: "AAAAA-BBBBB-CCCCC" });
    expect(badName.status).toBe(403);
    // With the right code, the rules are told.
    const short = await setup({ name: "ops", password: "short", code: app.t.app.setupCode });
    expect(short.status).toBe(400);
    expect(short.body.error?.details?.[0]?.message).toBe("use at least 10 characters");
    expect(await app.t.db.prisma.operator.count()).toBe(0);
    expect((await setup({ name: "ops", password: "a-long-password", code: app.t.app.setupCode })).status).toBe(201);
    expect(await app.t.db.prisma.operator.count()).toBe(1);
  });
});

describe.each(databases)("a model answer holding NUL ($name)", ({ open }) => {
  const h = useHarness({ open, script: () => ({ reply: "your parcel\u0000 ships tomorrow" }) });

  it("is sent and stored without the NUL; the turn does not fail", async () => {
    await h.t.post(update({ messageId: 1, text: "where is my parcel?" }));
    await h.t.settle();
    expect(h.telegram.sends().map((s) => s.body.text)).toEqual(["your parcel ships tomorrow"]);
    const answer = await h.t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "agent" } });
    expect(answer.text).toBe("your parcel ships tomorrow");
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.error).toBeNull();
  });
});
