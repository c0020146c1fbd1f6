import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getEventListeners } from "node:events";
import { APICallError, generateText } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetch } from "@/lib/agent/http-fetch";
import { generateFromStream } from "@/lib/agent/generate-from-stream";
import { ProviderGate, limitModel } from "@/lib/agent/call-limits";
import type { LanguageModelV4 } from "@ai-sdk/provider";

let server: Server;
let base: string;
const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const url = req.url ?? "";
      if (url.startsWith("/ok/")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk("Hello "));
        res.write(chunk("world", "stop"));
        res.write(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })}\n\n`,
        );
        return void res.end("data: [DONE]\n\n");
      }
      if (url.startsWith("/cut/")) {
        // Half the answer, then the connection drops (no finish_reason, no [DONE]).
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk("Half an ans"));
        return void setTimeout(() => res.socket?.destroy(), 50);
      }
      if (url.startsWith("/hang/")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk("Hi"));
        return; // never ends
      }
      if (url.startsWith("/limited/")) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
        return void res.end(JSON.stringify({ error: { message: "slow down" } }));
      }
      if (url.startsWith("/html500/")) {
        res.writeHead(500, { "content-type": "text/html" });
        return void res.end("<html>oops</html>");
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const httpFetch = createHttpFetch();
const modelAt = (path: string) =>
  createOpenAICompatible({ name: "t", baseURL: `${base}${path}`, apiKey: "k", fetch: httpFetch, includeUsage: true })(
    "m",
  ) as unknown as LanguageModelV4;

describe("streamed calls over the keep-alive fetch", () => {
  it("a full stream gives the same text and usage as generateText", async () => {
    const r = await generateText({ model: generateFromStream(modelAt("/ok"), () => {}), prompt: "x", maxRetries: 0 });
    expect(r.text).toBe("Hello world");
    expect(r.usage.totalTokens).toBe(3);
  });

  it("Google's streamed call (`?alt=sse` in the address, no stream flag in the body) is handed out as it arrives, not buffered", async () => {
    // The server sends one event and never ends: only a response handed out as it arrives can be read.
    const signal = AbortSignal.timeout(10_000);
    const response = await createHttpFetch()(new URL(`${base}/hang/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
      signal,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"content":"Hi"');
    await reader.cancel();
  });

  it("a connection cut mid-stream fails the call (does not pass as a finished, truncated answer)", async () => {
    const outcome = await generateText({ model: generateFromStream(modelAt("/cut"), () => {}), prompt: "x", maxRetries: 0 }).then(
      (r) => ({ ok: true as const, text: r.text, finish: r.finishReason }),
      (e) => ({
        ok: false as const,
        error: String(e),
        name: (e as Error).name,
        cause: String((e as { cause?: unknown }).cause),
        retryable: (e as { isRetryable?: boolean }).isRetryable,
      }),
    );
    expect(outcome.ok).toBe(false);
  });

  it("a streamed 429 is an APICallError with status and Retry-After; a 500 html one too", async () => {
    const e = await generateText({ model: generateFromStream(modelAt("/limited"), () => {}), prompt: "x", maxRetries: 0 }).catch((e) => e);
    expect(APICallError.isInstance(e)).toBe(true);
    expect(e.statusCode).toBe(429);
    expect(e.responseHeaders["retry-after"]).toBe("7");
    const e2 = await generateText({ model: generateFromStream(modelAt("/html500"), () => {}), prompt: "x", maxRetries: 0 }).catch((e) => e);
    expect(APICallError.isInstance(e2)).toBe(true);
    expect(e2.statusCode).toBe(500);
  });

  it("a 429 on a streamed call through the gate pauses the provider (RateLimitedError)", async () => {
    const gate = new ProviderGate("t", 4, Date.now, "m", 2_000);
    const handle = limitModel({ provider: "t", modelId: "m", model: modelAt("/limited") } as never, gate);
    const e = await generateText({
      model: generateFromStream(handle.model as LanguageModelV4, () => {}),
      prompt: "x",
      maxRetries: 0,
    }).catch((e) => e);
    expect(e.name).toBe("RateLimitedError");
    expect(gate.load().active).toBe(0);
  });

  it("headers then silence: the gate's timeout aborts the call and frees the slot; the keep-alive client still works", async () => {
    const gate = new ProviderGate("t", 4, Date.now, "m", 300);
    const handle = limitModel({ provider: "t", modelId: "m", model: modelAt("/hang") } as never, gate);
    const e = await generateText({
      model: generateFromStream(handle.model as LanguageModelV4, () => {}),
      prompt: "x",
      maxRetries: 0,
    }).catch((e) => e);
    expect(e?.name).toBe("TimeoutError");
    expect(gate.load().active).toBe(0);
    const r = await generateText({ model: generateFromStream(modelAt("/ok"), () => {}), prompt: "x", maxRetries: 0 });
    expect(r.text).toBe("Hello world");
  });

  it("no abort listeners are left on a shared signal after streamed calls (read, failed, cancelled)", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++)
      await generateText({
        model: generateFromStream(modelAt("/ok"), () => {}),
        prompt: "x",
        maxRetries: 0,
        abortSignal: controller.signal,
      });
    await generateText({
      model: generateFromStream(modelAt("/limited"), () => {}),
      prompt: "x",
      maxRetries: 0,
      abortSignal: controller.signal,
    }).catch(() => {});
    await generateText({
      model: generateFromStream(modelAt("/cut"), () => {}),
      prompt: "x",
      maxRetries: 0,
      abortSignal: controller.signal,
    }).catch(() => {});
    await new Promise((r) => setTimeout(r, 100));
    expect(getEventListeners(controller.signal, "abort").length).toBe(0);
  });
});
