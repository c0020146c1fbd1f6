import type {
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";

/**
 * A model whose generate call is made as a streamed one: the provider streams,
 * `onPart` sees every part as it arrives (a draft of the answer), and the caller
 * (`generateText`) gets the same result a generate call would have returned.
 *
 * Why not `streamText`: its orchestration (stitched, teed and transformed web
 * streams around every step) cost about 3.5 ms more CPU per call than
 * `generateText` over the same streamed response on the answer-latency
 * benchmark's machine, for a turn that only needs the reply's text as it grows.
 * The AI SDK has the other direction only (`simulateStreamingMiddleware`), so
 * the parts are gathered here by hand.
 */
export function generateFromStream(
  model: LanguageModelV4,
  onPart: (part: LanguageModelV4StreamPart) => void | Promise<void>,
): LanguageModelV4 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v4",
      wrapGenerate: async ({ doStream }) => gatherStream(await doStream(), onPart),
    },
  });
}

/**
 * Reads a streamed call to its end and returns it as a generate call's result.
 * An `error` part is thrown (as a failed generate call throws), so a rate limit
 * or a refused request mid-stream reaches the caller's handling unchanged (behind
 * the provider's gate, a rate limit's part carries RateLimitedError: call-limits.ts).
 */
export async function gatherStream(
  result: LanguageModelV4StreamResult,
  onPart: (part: LanguageModelV4StreamPart) => void | Promise<void> = () => {},
): Promise<LanguageModelV4GenerateResult> {
  const content: LanguageModelV4Content[] = [];
  // Text and reasoning arrive as deltas under an id: one content part each, in order of their start.
  const open = new Map<
    string,
    { type: "text" | "reasoning"; text: string; providerMetadata?: LanguageModelV4Content["providerMetadata"] }
  >();
  let finish: Extract<LanguageModelV4StreamPart, { type: "finish" }> | null = null;
  let warnings: LanguageModelV4GenerateResult["warnings"] = [];
  let metadata: Omit<Extract<LanguageModelV4StreamPart, { type: "response-metadata" }>, "type"> = {};
  const reader = result.stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value;
      await onPart(part);
      switch (part.type) {
        case "stream-start":
          warnings = part.warnings;
          break;
        case "response-metadata": {
          const { type: _, ...rest } = part;
          metadata = { ...metadata, ...rest };
          break;
        }
        case "text-start":
        case "reasoning-start":
        case "text-delta":
        case "reasoning-delta":
        case "text-end":
        case "reasoning-end": {
          const type = part.type.startsWith("text") ? "text" : "reasoning";
          let entry = open.get(`${type}:${part.id}`);
          if (!entry) {
            // Opened by its start, or by a first delta when a provider sends no start.
            entry = { type, text: "" };
            open.set(`${type}:${part.id}`, entry);
            content.push(entry as LanguageModelV4Content);
          }
          if ("delta" in part) entry.text += part.delta;
          // A reasoning block's signature may come on a delta or its end (Anthropic): the latest is kept, as streamText does.
          if (part.providerMetadata) entry.providerMetadata = part.providerMetadata;
          break;
        }
        case "tool-call":
        case "tool-result":
        case "tool-approval-request":
        case "file":
        case "source":
          content.push(part);
          break;
        case "finish":
          finish = part;
          break;
        case "error":
          throw part.error;
        // tool-input-start/delta/end are drafts of the tool-call part that follows; raw is not kept.
      }
    }
  } catch (error) {
    // Ends the provider's response too, and the call's slot in its gate with it.
    await reader.cancel(error).catch(() => {});
    throw error;
  }
  if (!finish) throw new Error("the model's stream ended without finishing");
  return {
    // An empty part is dropped unless it carries metadata (redacted or encrypted reasoning must go back to the provider).
    content: content.filter((c) =>
      c.type === "text" || c.type === "reasoning" ? c.text.length > 0 || c.providerMetadata !== undefined : true,
    ),
    finishReason: finish.finishReason,
    usage: finish.usage,
    ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
    ...(result.request ? { request: result.request } : {}),
    response: { ...metadata, ...(result.response?.headers ? { headers: result.response.headers } : {}) },
    warnings,
  };
}
