import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "hostile-ids-token-0123456789";
type Handler = (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;

/**
 * Ids in query strings and bodies, not only in paths, are bounded: the id columns
 * are 32-bit on PostgreSQL, and an id beyond them is a 400, never a 500.
 */
describe.each(databases)("ids beyond the id columns in queries and bodies ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  async function call(
    routeFile: string,
    method: "GET" | "POST" | "PATCH",
    url: string,
    body?: unknown,
    params: Record<string, string> = {},
  ) {
    const route = (await import(resolve("app/api/v1", routeFile))) as Record<string, Handler>;
    const form = body instanceof FormData;
    const request = new Request(`http://localhost/api/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined || form ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
    });
    const response = await route[method](request, { params: Promise.resolve(params) });
    return { status: response.status, body: (await response.json()) as { error?: { message?: string } } };
  }

  it("every one is a 400 with a message, and nothing is written", async () => {
    const big = 2_147_483_648;
    const conversation = await app.t.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "7", type: "private" } });
    const operator = await app.t.db.prisma.operator.create({ data: { name: "ann", passwordHash: "x", role: "agent" } });
    const upload = new FormData();
    upload.set("file", new Blob([Buffer.from("hello world")], { type: "text/plain" }), "a.txt");
    upload.set("replyToMessageId", String(big));
    const inConversation = { id: String(conversation.id) };
    const cases: [string, "GET" | "POST" | "PATCH", string, unknown, Record<string, string>?][] = [
      ["envelopes/route.ts", "GET", `/envelopes?before=${big}`, undefined],
      ["envelopes/route.ts", "GET", `/envelopes?conversation=${big}`, undefined],
      [
        "conversations/[id]/messages/route.ts",
        "GET",
        `/conversations/${conversation.id}/messages?before=${big}`,
        undefined,
        { id: String(conversation.id) },
      ],
      ["forks/route.ts", "GET", `/forks?conversationId=${big}`, undefined],
      ["forks/route.ts", "POST", "/forks", { conversationId: big, task: "summarize" }],
      ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:main", text: "hi", replyTo: big }],
      ["envelopes/route.ts", "POST", "/envelopes", { from: "operator:op", to: "agent:main", text: "hi", conversationId: big }],
      ["conversations/[id]/route.ts", "PATCH", `/conversations/${conversation.id}`, { assigneeId: big }, inConversation],
      ["conversations/[id]/media/route.ts", "POST", `/conversations/${conversation.id}/media`, upload, inConversation],
      ["operators/[id]/route.ts", "PATCH", `/operators/${operator.id}`, { botIds: [big] }, { id: String(operator.id) }],
      ["search/route.ts", "GET", `/search?q=hello&conversationId=${big}`, undefined],
      ["search/route.ts", "GET", `/search?q=hello&botId=${big}`, undefined],
      ["settings/route.ts", "GET", `/settings?conversationId=${big}`, undefined],
      ["datasets/route.ts", "POST", "/datasets", { name: "d", turnIds: [big] }],
      ["datasets/route.ts", "POST", "/datasets", { name: "d", conversationId: big }],
      ["datasets/route.ts", "POST", "/datasets", { name: "d", messageIds: [big] }],
      ["datasets/[id]/runs/[runId]/route.ts", "GET", `/datasets/1/runs/1?compareTo=${big}`, undefined, { id: "1", runId: "1" }],
      [
        "simulator/updates/route.ts",
        "POST",
        "/simulator/updates",
        { chat: { type: "private", id: 5 }, user: { id: 5, firstName: "Una" }, text: "hi", replyToMessageId: big },
      ],
    ];
    const seen = [];
    for (const [file, method, url, body, params] of cases) {
      const response = await call(file, method, url, body, params);
      seen.push({ url, body, status: response.status, message: typeof response.body.error?.message });
    }
    expect(seen).toEqual(cases.map(([, , url, body]) => ({ url, body, status: 400, message: "string" })));
    expect(await app.t.db.prisma.envelope.count()).toBe(0);
    expect(await app.t.db.prisma.fork.count()).toBe(0);
    expect(await app.t.db.prisma.dataset.count()).toBe(0);
    expect(await app.t.db.prisma.message.count()).toBe(0);
    expect(await app.t.db.prisma.conversation.findUniqueOrThrow({ where: { id: conversation.id } })).toMatchObject({ assigneeId: null });
    expect(await app.t.db.prisma.operator.findUniqueOrThrow({ where: { id: operator.id } })).toMatchObject({ botIds: null });
  });
});
