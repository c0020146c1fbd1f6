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

  async function call(routeFile: string, method: "GET" | "POST", url: string, body?: unknown, params: Record<string, string> = {}) {
    const route = (await import(resolve("app/api/v1", routeFile))) as Record<string, Handler>;
    const request = new Request(`http://localhost/api/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const response = await route[method](request, { params: Promise.resolve(params) });
    return { status: response.status, body: (await response.json()) as { error?: { message?: string } } };
  }

  it("every one is a 400 with a message, and nothing is written", async () => {
    const big = 2_147_483_648;
    const conversation = await app.t.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "7", type: "private" } });
    const cases: [string, "GET" | "POST", string, unknown, Record<string, string>?][] = [
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
    ];
    const seen = [];
    for (const [file, method, url, body, params] of cases) {
      const response = await call(file, method, url, body, params);
      seen.push({ url, body, status: response.status, message: typeof response.body.error?.message });
    }
    expect(seen).toEqual(cases.map(([, , url, body]) => ({ url, body, status: 400, message: "string" })));
    expect(await app.t.db.prisma.envelope.count()).toBe(0);
    expect(await app.t.db.prisma.fork.count()).toBe(0);
  });
});
