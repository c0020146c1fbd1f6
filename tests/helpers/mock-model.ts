import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import type { ModelHandle } from "@/lib/agent/model";

type Step = { replies?: string[]; handoffs?: string[]; text?: string } | { error: Error };

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } };

/**
 * The AI SDK's mock model, scripted step by step: each step calls `reply` once per
 * entry of `replies` (several entries = several calls in one step), or answers with
 * text only, or throws; `handoffs` adds `handoff` calls (one per reason) after the replies. After the script, it ends the turn with no tool call.
 */
export function scriptedModel(steps: Step[]) {
  const calls: unknown[] = [];
  let i = 0;
  const generate = async (options: { prompt: unknown }): Promise<LanguageModelV4GenerateResult> => {
    {
      calls.push(options.prompt);
      const step = steps[i++];
      if (step && "error" in step) throw step.error;
      const replies = step?.replies ?? [];
      const handoffs = step && "handoffs" in step ? (step.handoffs ?? []) : [];
      const content = [
        ...(step?.text ? [{ type: "text" as const, text: step.text }] : []),
        ...replies.map((message, n) => ({
          type: "tool-call" as const,
          toolCallId: `call_${i}_${n}`,
          toolName: "reply",
          input: JSON.stringify({ message }),
        })),
        ...handoffs.map((reason, n) => ({
          type: "tool-call" as const,
          toolCallId: `handoff_${i}_${n}`,
          toolName: "handoff",
          input: JSON.stringify({ reason }),
        })),
      ];
      return {
        content,
        finishReason: { unified: replies.length || handoffs.length ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      };
    }
  };
  const model = new MockLanguageModelV4({
    doGenerate: generate,
    // The same step as a stream (the turn streams when it shows drafts): each tool call's input in two pieces.
    doStream: async (options) => {
      const result = await generate(options);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const part of result.content) {
        if (part.type === "text") {
          parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text }, { type: "text-end", id: "t" });
        } else if (part.type === "tool-call") {
          const half = Math.ceil(part.input.length / 2);
          parts.push(
            { type: "tool-input-start", id: part.toolCallId, toolName: part.toolName },
            { type: "tool-input-delta", id: part.toolCallId, delta: part.input.slice(0, half) },
            { type: "tool-input-delta", id: part.toolCallId, delta: part.input.slice(half) },
            { type: "tool-input-end", id: part.toolCallId },
            part,
          );
        }
      }
      parts.push({ type: "finish", finishReason: result.finishReason, usage: result.usage });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  });
  const handle: ModelHandle = { model, provider: "mock", modelId: "scripted" };
  return { handle, calls };
}
