import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
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
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
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
    },
  });
  const handle: ModelHandle = { model, provider: "mock", modelId: "scripted" };
  return { handle, calls };
}
