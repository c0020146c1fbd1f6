import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { APICallError, generateText } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetch } from "@/lib/agent/http-fetch";

let server: Server;
let base: string;
let release: () => void = () => {};
const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
      if (req.url?.startsWith("/limited/")) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
        return void res.end(JSON.stringify({ error: { message: "slow down" } }));
      }
      if (req.url === "/sse") {
        // The first event now, the second only when the test says (a buffered fetch would wait for it).
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: one\n\n");
        release = () => res.end("data: two\n\n");
        return;
      }
      if (req.url === "/empty") {
        res.writeHead(204);
        return void res.end();
      }
      res.writeHead(200, { "content-type": "application/json", "x-extra": "1" });
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: `echo ${JSON.parse(body).messages.at(-1).content}` },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the providers' http fetch", () => {
  it("carries a model call: method, headers and body out, status, headers and body back", async () => {
    const model = createOpenAICompatible({ name: "t", baseURL: `${base}/v1`, apiKey: "k", fetch: createHttpFetch() })("m");
    const result = await generateText({ model, prompt: "ping", maxRetries: 0 });
    expect(result.text).toBe("echo ping");
    expect(result.response.headers?.["x-extra"]).toBe("1");
    const request = seen.at(-1)!;
    expect(request.method).toBe("POST");
    expect(request.headers.authorization).toBe("Bearer k");
    expect(JSON.parse(request.body).model).toBe("m");
  });

  it("hands a rate limit to the SDK as fetch would: an APICallError with the status and Retry-After", async () => {
    const model = createOpenAICompatible({ name: "t", baseURL: `${base}/limited`, apiKey: "k", fetch: createHttpFetch() })("m");
    const error = await generateText({ model, prompt: "ping", maxRetries: 0 }).catch((e) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error.statusCode).toBe(429);
    expect(error.responseHeaders["retry-after"]).toBe("7");
  });

  it("rejects like fetch: a refused connection is TypeError('fetch failed') with the cause, an abort is the signal's reason", async () => {
    const httpFetch = createHttpFetch();
    const refused = await httpFetch("http://127.0.0.1:1/", { method: "POST", body: "{}" }).catch((e) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused.message).toBe("fetch failed");
    expect((refused.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    const aborted = await httpFetch(`${base}/slow`, { method: "POST", body: "{}", signal: AbortSignal.timeout(50) }).catch((e) => e);
    expect(aborted.name).toBe("TimeoutError");
  });

  it("builds bodiless responses without a body, and leaves other bodies to the global fetch", async () => {
    const empty = await createHttpFetch()(`${base}/empty`, { method: "POST", body: "{}" });
    expect(empty.status).toBe(204);
    const fallback: typeof fetch = async () => new Response("from the fallback");
    const form = await createHttpFetch(fallback)(`${base}/v1`, { method: "POST", body: new URLSearchParams({ a: "1" }) });
    expect(await form.text()).toBe("from the fallback");
  });

  it("hands a streamed call's body out as it arrives, not when it ends", async () => {
    const response = await createHttpFetch()(`${base}/sse`, { method: "POST", body: '{"model":"m","stream":true}' });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The server has written only the first event: reading it must not wait for the end.
    expect(decoder.decode((await reader.read()).value)).toBe("data: one\n\n");
    release();
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += decoder.decode(next.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("an abort while a streamed body arrives errors the body with the signal's reason", async () => {
    const controller = new AbortController();
    const response = await createHttpFetch()(`${base}/sse`, { method: "POST", body: '{"stream":true}', signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort(new Error("time limit"));
    await expect(reader.read()).rejects.toThrow("time limit");
    release();
  });
});
