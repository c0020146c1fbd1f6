import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { APICallError, generateText } from "ai";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RATE_LIMIT_PAUSE_MS,
  ProviderGate,
  RateLimitedError,
  congestionOf,
  limitModel,
  rateLimitDelayMs,
} from "@/lib/agent/call-limits";
import { generateFromStream } from "@/lib/agent/generate-from-stream";

/**
 * Providers that answer HTTP 200 and then report an error inside the stream, built from
 * the real provider packages over a fetch that returns the bytes each one sends.
 */
const sse = (events: string[]): typeof fetch =>
  (async () =>
    new Response(events.map((e) => `${e}\n\n`).join(""), {
      status: 200,
      headers: { "content-type": "text/event-stream" },
    })) as unknown as typeof fetch;

const anthropic = (error: { type: string; message: string }) =>
  createAnthropic({
    apiKey: "k",
    fetch: sse([
      `event: message_start\ndata: ${JSON.stringify({
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      })}`,
      `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}`,
      `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } })}`,
      `event: error\ndata: ${JSON.stringify({ type: "error", error })}`,
    ]),
  })("claude-test");

/** OpenAI's chat completions bytes (also what OpenAI-compatible servers send): some output, then an error chunk. */
const chatEvents = (error: Record<string, unknown>) => [
  `data: ${JSON.stringify({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }],
  })}`,
  `data: ${JSON.stringify({ error })}`,
  "data: [DONE]",
];
const openai = (error: Record<string, unknown>) => createOpenAI({ apiKey: "k", fetch: sse(chatEvents(error)) }).chat("gpt-test");
const compatible = (error: Record<string, unknown>) =>
  createOpenAICompatible({ name: "llm", baseURL: "http://llm.test/v1", apiKey: "k", fetch: sse(chatEvents(error)) })("m");

/** The `error` part's error, as the provider's own doStream puts it in the stream. */
async function errorPartOf(model: LanguageModelV4) {
  const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) if (part.type === "error") return part.error;
  throw new Error("no error part");
}

/** A drafted turn's model call: streamed, gathered, through the provider's gate. */
function draftedCall(model: LanguageModelV4, gate: ProviderGate) {
  const limited = limitModel({ provider: "p", modelId: "m", model }, gate);
  return generateText({ model: generateFromStream(limited.model as LanguageModelV4, () => {}), prompt: "hi", maxRetries: 0 }).catch(
    (e: unknown) => e,
  );
}

const openaiRateLimit = {
  message: "Rate limit reached for requests",
  type: "requests",
  param: null,
  code: "rate_limit_exceeded",
};

describe("a refusal reported inside the stream (HTTP 200, then an error event)", () => {
  it("is classified from the error object each provider puts in the error part: rate limit, overload, or neither", async () => {
    const now = Date.now();
    const rateLimits = [
      await errorPartOf(anthropic({ type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" })),
      await errorPartOf(openai(openaiRateLimit)),
      await errorPartOf(compatible({ message: "Resource has been exhausted", code: 429 })),
    ];
    const overloads = [
      await errorPartOf(anthropic({ type: "overloaded_error", message: "Overloaded" })),
      await errorPartOf(compatible({ message: "The server is overloaded", type: "server_overloaded" })),
    ];
    const others = [
      await errorPartOf(anthropic({ type: "api_error", message: "Internal server error" })),
      await errorPartOf(openai({ message: "The server had an error", type: "server_error", param: null, code: null })),
      await errorPartOf(openai({ message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" })),
      // Codes that only contain the words: a length limit, a moderation limit.
      await errorPartOf(compatible({ message: "Too long", code: "max_generate_limit_exceeded" })),
      await errorPartOf(compatible({ message: "Refused", type: "moderate_limit" })),
      await errorPartOf(compatible({ message: "Not overloaded", type: "overload_protection_disabled" })),
    ];
    // Not an APICallError with a status: the provider's own object.
    for (const error of [...rateLimits, ...overloads, ...others]) expect(APICallError.isInstance(error)).toBe(false);
    // Anthropic's SDK (4.x) adds the status its error type stands for; the type is what is read.
    expect(rateLimits[0]).toMatchObject({ type: "rate_limit_error", message: expect.any(String), statusCode: 429 });
    expect(rateLimits[1]).toMatchObject({ code: "rate_limit_exceeded" });

    for (const error of rateLimits) expect(rateLimitDelayMs(error, now)).toBe(DEFAULT_RATE_LIMIT_PAUSE_MS);
    for (const error of overloads) expect([rateLimitDelayMs(error, now), congestionOf(error)]).toEqual([null, "overloaded"]);
    for (const error of others) expect([rateLimitDelayMs(error, now), congestionOf(error)]).toEqual([null, null]);
  });

  it.each([
    [
      "Anthropic",
      () => anthropic({ type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" }),
      "rate_limit_error",
    ],
    ["OpenAI", () => openai(openaiRateLimit), "rate_limit_exceeded"],
    ["OpenAI-compatible", () => compatible(openaiRateLimit), "rate_limit_exceeded"],
  ])(
    "%s: a rate limit pauses the provider (default pause) and fails the call with RateLimitedError, as a 429 does",
    async (_, model, name) => {
      const gate = new ProviderGate("p", 8, Date.now, "m", 5_000);
      const before = Date.now();
      const error = await draftedCall(model(), gate);
      expect(error).toBeInstanceOf(RateLimitedError);
      const until = gate.pausedUntil()!.getTime();
      expect(until).toBeGreaterThanOrEqual(before + DEFAULT_RATE_LIMIT_PAUSE_MS);
      expect(until).toBeLessThanOrEqual(Date.now() + DEFAULT_RATE_LIMIT_PAUSE_MS);
      expect((error as RateLimitedError).until.getTime()).toBe(until);
      expect(gate.limitState().lastBackoff).toMatchObject({
        reason: "rate_limited",
        detail: `${name} inside the stream, paused 5.0 s, 0 other calls in flight`,
      });
      expect(gate.load().active).toBe(0);
    },
  );

  it("an overload backs the limit off without a pause, and the call fails with the provider's error (a 503 without Retry-After does the same)", async () => {
    const gate = new ProviderGate("p", 8, Date.now, "m", 5_000);
    const error = await draftedCall(anthropic({ type: "overloaded_error", message: "Overloaded" }), gate);
    expect(error).not.toBeInstanceOf(RateLimitedError);
    expect(String((error as Error).message)).toMatch(/Overloaded/);
    expect(gate.pausedUntil()).toBeNull();
    expect(gate.limitState().lastBackoff).toMatchObject({
      reason: "overloaded",
      detail: "overloaded_error inside the stream, 0 other calls in flight",
    });
    expect(gate.load().active).toBe(0);

    // Any other error inside the stream says nothing about the provider's load.
    const other = new ProviderGate("p", 8, Date.now, "m", 5_000);
    await draftedCall(anthropic({ type: "api_error", message: "Internal server error" }), other);
    expect([other.pausedUntil(), other.limitState().lastBackoff]).toEqual([null, null]);
  });
});
