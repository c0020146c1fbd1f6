import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { APICallError, generateText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { ProviderGate, RateLimitedError, limitModel } from "@/lib/agent/call-limits";
import { generateFromStream } from "@/lib/agent/generate-from-stream";

/** A provider that starts answering and then goes quiet until aborted (both the generate and the streamed call). */
function hanging() {
  return new MockLanguageModelV4({
    doGenerate: ({ abortSignal }) =>
      new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })),
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(c) {
          c.enqueue({ type: "stream-start", warnings: [] });
          c.enqueue({ type: "text-start", id: "t" });
          abortSignal?.addEventListener("abort", () => c.error(abortSignal.reason), { once: true });
        },
      }),
    }),
  });
}

describe("a call that times out, with and without drafts", () => {
  it("backs the adaptive limit off the same way (a timeout is congestion either way)", async () => {
    const plainGate = new ProviderGate("p", 8, Date.now, "m", 200);
    const plain = limitModel({ provider: "p", modelId: "m", model: hanging() } as never, plainGate);
    const e1 = await generateText({ model: plain.model, prompt: "x", maxRetries: 0 }).catch((e) => e);

    const draftGate = new ProviderGate("p", 8, Date.now, "m", 200);
    const drafted = limitModel({ provider: "p", modelId: "m", model: hanging() } as never, draftGate);
    const e2 = await generateText({
      model: generateFromStream(drafted.model as LanguageModelV4, () => {}),
      prompt: "x",
      maxRetries: 0,
    }).catch((e) => e);

    expect([e1?.name, e2?.name]).toEqual(["TimeoutError", "TimeoutError"]);
    expect(draftGate.load().active).toBe(0);
    expect(draftGate.limitState().lastBackoff).toEqual(expect.objectContaining({ reason: plainGate.limitState().lastBackoff?.reason }));
  });

  it("an overload reported inside the stream (an error part) backs the limit off and pauses the provider", async () => {
    const overloaded = new APICallError({
      message: "Overloaded",
      url: "https://provider.test/v1/messages",
      requestBodyValues: {},
      statusCode: 529,
      responseHeaders: { "retry-after": "2" },
      isRetryable: true,
    });
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(c) {
            c.enqueue({ type: "stream-start", warnings: [] });
            c.enqueue({ type: "error", error: overloaded });
            c.close();
          },
        }),
      }),
    });
    const gate = new ProviderGate("p", 8, Date.now, "m", 5_000);
    const limited = limitModel({ provider: "p", modelId: "m", model } as never, gate);
    const error = await generateText({
      model: generateFromStream(limited.model as LanguageModelV4, () => {}),
      prompt: "x",
      maxRetries: 0,
    }).catch((e) => e);
    // The pause is the gate's verdict, as for a 529 with Retry-After before the stream: the turn is put back, no attempt counted.
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.until).toEqual(gate.pausedUntil());
    expect(gate.load().active).toBe(0);
    expect(gate.limitState().lastBackoff).toEqual(expect.objectContaining({ reason: "overloaded" }));
    // The next call waits for Retry-After, as after a refused generate call.
    await expect((limited.model as LanguageModelV4).doGenerate({ prompt: [] } as never)).rejects.toThrow(/rate|paused|limit/i);
  });
});
