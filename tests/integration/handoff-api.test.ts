import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "test-api-token-0123456789";
type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;

/** POST /api/v1/conversations/{id}/handoff with bad input: a clear 4xx, never a 5xx, and nothing changed. */
describe.each(databases)("the handoff API refuses bad input on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  async function post(id: string, body: string, contentType = "application/json") {
    const route = (await import(resolve("app/api/v1/conversations/[id]/handoff/route.ts"))) as Route;
    const request = new Request(`http://localhost/api/v1/conversations/${id}/handoff`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": contentType },
      body,
    });
    const response = await route.POST(request, { params: Promise.resolve({ id }) });
    return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
  }

  it("every bad request is a 4xx with a message, and the conversation and its history are unchanged", async () => {
    await app.t.post(update({ text: "hi" }));
    await app.t.settle();
    const { id } = await app.t.db.prisma.conversation.findFirstOrThrow();
    const envelopes = await app.t.db.prisma.envelope.count();
    const cases: [string, string, string, number][] = [
      ["reason of 501 characters", String(id), JSON.stringify({ action: "request", reason: "x".repeat(501) }), 400],
      ["unknown action", String(id), JSON.stringify({ action: "steal" }), 400],
      ["a string where the object goes", String(id), JSON.stringify("request"), 400],
      ["an object where the reason's string goes", String(id), JSON.stringify({ action: "request", reason: { a: 1 } }), 400],
      ["an operator named in the body", String(id), JSON.stringify({ action: "take", operator: "mallory" }), 400],
      ["not JSON", String(id), "{", 400],
      ["a blank reason", String(id), JSON.stringify({ action: "request", reason: "   " }), 400],
      ["a non-numeric id", "abc", JSON.stringify({ action: "request" }), 400],
      ["an id beyond the 32-bit INTEGER column", "2147483648", JSON.stringify({ action: "request" }), 400],
      ["an id beyond the safe integers", "99999999999999999999", JSON.stringify({ action: "request" }), 400],
      ["a nonexistent conversation", "2147483647", JSON.stringify({ action: "request" }), 404],
    ];
    for (const [label, conversationId, body, status] of cases) {
      const response = await post(conversationId, body);
      expect({ label, status: response.status, message: typeof response.body.error?.message }).toEqual({
        label,
        status,
        message: "string",
      });
    }
    expect((await post(String(id), JSON.stringify({ action: "request" }), "text/plain")).status).toBe(415);
    expect((await app.t.db.prisma.conversation.findFirstOrThrow()).handoffState).toBeNull();
    expect(await app.t.db.prisma.envelope.count()).toBe(envelopes);
    // A good request still works.
    expect(await post(String(id), JSON.stringify({ action: "request", reason: "x".repeat(500) }))).toMatchObject({ status: 200 });
  });
});
