import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelFromEnv } from "@/lib/agent/model";
import { generateFromStream } from "@/lib/agent/generate-from-stream";

/**
 * An OpenAI-compatible server that follows OpenAI's rule for streamed usage (vLLM, llama.cpp,
 * OpenAI itself): the usage chunk is sent only when the request asks for it (stream_options.include_usage).
 */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw);
      const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
      const head = { id: "c", created: 0, model: "m" };
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(
          JSON.stringify({
            ...head,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
            usage,
          }),
        );
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (x: unknown) =>
        res.write(`data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", ...(x as object) })}\n\n`);
      chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }] });
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
      if (body.stream_options?.include_usage) chunk({ choices: [], usage });
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("token usage of a drafted turn on an openai-compatible provider", () => {
  it("is recorded as without drafts", async () => {
    const handle = modelFromEnv({ LLM_PROVIDER: "openai-compatible", LLM_MODEL: "m", LLM_BASE_URL: base, LLM_API_KEY: "k" } as never)!;
    const plain = await generateText({ model: handle.model, prompt: "x", maxRetries: 0 });
    const drafted = await generateText({
      model: generateFromStream(handle.model as LanguageModelV4, () => {}),
      prompt: "x",
      maxRetries: 0,
    });
    expect(plain.usage.inputTokens).toBe(12);
    expect(drafted.usage.inputTokens).toBe(12);
  });
});
