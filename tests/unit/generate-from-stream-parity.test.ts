import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, jsonSchema, isStepCount, streamText, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { generateFromStream } from "@/lib/agent/generate-from-stream";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const streamOf = (list: LanguageModelV4StreamPart[]) =>
  new ReadableStream<LanguageModelV4StreamPart>({
    start(c) {
      for (const p of list) c.enqueue(p);
      c.close();
    },
  });

/** Step 1 as Anthropic streams it with extended thinking: a signed thinking block (signature on a delta), a redacted one, then a tool call. */
const step1: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "reasoning-start", id: "0" },
  { type: "reasoning-delta", id: "0", delta: "let me think" },
  { type: "reasoning-delta", id: "0", delta: "", providerMetadata: { anthropic: { signature: "SIG" } } },
  { type: "reasoning-end", id: "0" },
  { type: "reasoning-start", id: "1", providerMetadata: { anthropic: { redactedData: "REDACTED" } } },
  { type: "reasoning-end", id: "1" },
  { type: "tool-call", toolCallId: "c1", toolName: "reply", input: '{"message":"hi"}' },
  { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
];
const step2: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "done" },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage },
];

function model(prompts: LanguageModelV4Prompt[]) {
  let n = 0;
  return new MockLanguageModelV4({
    doStream: async (options) => {
      prompts.push(options.prompt);
      return { stream: streamOf(n++ === 0 ? step1 : step2) };
    },
  });
}
const tools = () => ({
  reply: tool({
    inputSchema: jsonSchema<{ message: string }>({ type: "object", properties: { message: { type: "string" } }, required: ["message"] }),
    // A failed send goes back to the model (the turn's second step).
    execute: async () => ({ error: "send failed" }),
  }),
});
const reasoningSentBack = (prompts: LanguageModelV4Prompt[]) =>
  prompts[1]
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.content as { type: string; text?: string; providerOptions?: unknown }[])
    .filter((p) => p.type === "reasoning")
    .map((p) => ({ text: p.text, providerOptions: p.providerOptions }));

describe("generateFromStream vs streamText on a multi-step turn with reasoning", () => {
  it("sends step 1's reasoning back in step 2 exactly as streamText does", async () => {
    const viaStreamText: LanguageModelV4Prompt[] = [];
    const s = streamText({ model: model(viaStreamText), prompt: "q", tools: tools(), stopWhen: isStepCount(3) });
    await s.consumeStream();
    await s.steps;
    const viaGather: LanguageModelV4Prompt[] = [];
    await generateText({ model: generateFromStream(model(viaGather), () => {}), prompt: "q", tools: tools(), stopWhen: isStepCount(3) });
    expect(reasoningSentBack(viaGather)).toEqual(reasoningSentBack(viaStreamText));
  });
});
