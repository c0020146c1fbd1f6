import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, jsonSchema, isStepCount, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { gatherStream, generateFromStream } from "@/lib/agent/generate-from-stream";

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A stream as providers send it: metadata, reasoning, text in deltas, a tool call's input in pieces, then finish. */
function parts(): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "resp-1", modelId: "m-1", timestamp: new Date(0) },
    { type: "reasoning-start", id: "r" },
    { type: "reasoning-delta", id: "r", delta: "thinking" },
    { type: "reasoning-end", id: "r" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Hel" },
    { type: "text-delta", id: "t", delta: "lo" },
    { type: "text-end", id: "t" },
    { type: "tool-input-start", id: "c1", toolName: "reply" },
    { type: "tool-input-delta", id: "c1", delta: '{"message":"Hi ' },
    { type: "tool-input-delta", id: "c1", delta: 'there"}' },
    { type: "tool-input-end", id: "c1" },
    { type: "tool-call", toolCallId: "c1", toolName: "reply", input: '{"message":"Hi there"}' },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
  ];
}

/** A stream of these parts that records whether its reader cancelled it. */
function streamOf(list: LanguageModelV4StreamPart[]) {
  const state = { cancelled: false };
  let i = 0;
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    pull(controller) {
      if (i < list.length) controller.enqueue(list[i++]);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const replyTool = () => {
  const sent: string[] = [];
  const reply = tool({
    inputSchema: jsonSchema<{ message: string }>({ type: "object", properties: { message: { type: "string" } }, required: ["message"] }),
    execute: async ({ message }) => {
      sent.push(message);
      return { status: "sent" };
    },
  });
  return { reply, sent };
};

describe("a generate call made as a streamed one", () => {
  it("gives generateText what a generate call would: text, reasoning, the tool call run once, usage, response metadata", async () => {
    const seen: string[] = [];
    const inner = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("the generate call is never made");
      },
      doStream: async () => ({ stream: streamOf(parts()).stream, response: { headers: { "x-id": "7" } } }),
    });
    const { reply, sent } = replyTool();
    const result = await generateText({
      model: generateFromStream(inner, (part) => {
        if (part.type === "tool-input-delta") seen.push(part.delta);
      }),
      prompt: "hello",
      tools: { reply },
      stopWhen: isStepCount(1),
    });
    expect(result.text).toBe("Hello");
    expect(result.reasoningText).toBe("thinking");
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([["reply", { message: "Hi there" }]]);
    expect(sent).toEqual(["Hi there"]);
    expect(result.finishReason).toBe("tool-calls");
    expect(result.usage.inputTokens).toBe(12);
    expect(result.usage.outputTokens).toBe(5);
    expect(result.response.id).toBe("resp-1");
    expect(result.response.modelId).toBe("m-1");
    expect(result.response.headers?.["x-id"]).toBe("7");
    // The parts were seen as they came, in order.
    expect(seen).toEqual(['{"message":"Hi ', 'there"}']);
  });

  it("throws an error part as a failed call throws, and ends the provider's stream (its slot in the gate with it)", async () => {
    const limited = Object.assign(new Error("rate limited"), { statusCode: 429 });
    const { stream, state } = streamOf([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "error", error: limited },
      { type: "text-delta", id: "t", delta: "never read" },
    ]);
    await expect(gatherStream({ stream })).rejects.toBe(limited);
    expect(state.cancelled).toBe(true);
  });

  it("refuses a stream that ends without finishing (a cut connection is not an empty answer)", async () => {
    const { stream } = streamOf(parts().slice(0, 8));
    await expect(gatherStream({ stream })).rejects.toThrow("without finishing");
  });

  it("a text delta without its start still counts, and empty text parts are dropped", async () => {
    const { stream } = streamOf([
      { type: "text-start", id: "empty" },
      { type: "text-end", id: "empty" },
      { type: "text-delta", id: "late", delta: "only part" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ]);
    const result = await gatherStream({ stream });
    expect(result.content).toEqual([{ type: "text", text: "only part" }]);
  });
});
