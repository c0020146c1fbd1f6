import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
} from "@ai-sdk/provider";
import type { ModelHandle } from "./model";

/** Said at the start of every demo answer, so nobody mistakes it for a real model. */
export const DEMO_LABEL = "[demo model, no LLM configured]";

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

function textOf(message: LanguageModelV4Prompt[number]): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("\n");
}

const MEDIA_LINE =
  /^\[(?:photo|video|animation|audio|voice|video note|document|sticker|animated sticker|video sticker|file too large)\b[^\n]*$/gm;

/**
 * What the demo says: how many messages it was shown, the reply annotation on
 * the newest one, the gap note in the system prompt, the files the newest carries
 * (their lines, and the pictures it was given as images). Pure, so it is tested alone.
 */
export function describePrompt(prompt: LanguageModelV4Prompt): string {
  const system = prompt
    .filter((m) => m.role === "system")
    .map(textOf)
    .join("\n");
  const messages = prompt.filter((m) => m.role !== "system");
  const newest = [...messages].reverse().find((m) => m.role === "user");
  const newestText = newest ? textOf(newest) : "";
  // The annotation is the line right after a header (lib/context/format.ts); the same
  // text inside a body is the user's own, escaped, and must not read as structure.
  const annotation = [...newestText.matchAll(/^--- [^\n]*\n(\[↩ reply to [^\n]*\])$/gm)].at(-1)?.[1];
  const gap = /the previous message in this conversation was (.+?) before this one/.exec(system)?.[1];
  // The media lines this system writes under the header (a user's own "[" is escaped, lib/context/media-line.ts).
  const media = [...newestText.matchAll(MEDIA_LINE)].map((m) => m[0]);
  const images =
    newest && typeof newest.content !== "string" ? newest.content.filter((p) => p.type === "file" && p.mediaType.startsWith("image/")) : [];
  const lines = [
    `${DEMO_LABEL} I was shown ${messages.length} message${messages.length === 1 ? "" : "s"} in context.`,
    annotation ? `The newest is a reply: ${annotation}` : "The newest is not a reply to an earlier message.",
    gap ? `Gap note: the previous message came ${gap} earlier.` : "No gap note (no long pause before this message).",
    ...(media.length ? [`It carries ${media.join(", ")}.`] : []),
    ...(images.length
      ? [`I was given ${images.length} picture${images.length === 1 ? "" : "s"} of it as image${images.length === 1 ? "" : "s"}.`]
      : []),
    "Set LLM_PROVIDER and LLM_MODEL (see Settings) for real answers.",
  ];
  return lines.join("\n");
}

/**
 * A built-in model for the sandbox (no LLM configured, no platform token): it
 * answers through the same `reply` tool a real model uses, describing what it
 * received, so a newcomer sees the whole pipeline. An AI SDK provider model
 * (LanguageModelV4), so the turn code cannot tell it from a real one.
 */
export function demoModel(): ModelHandle {
  const generate = async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
    const last = options.prompt[options.prompt.length - 1];
    const replyTool = options.tools?.some((t) => t.name === "reply");
    // After its tool call (a tool result is the newest message) or without the tool: say nothing more.
    const content: LanguageModelV4Content[] =
      last?.role === "tool" || !replyTool
        ? []
        : [
            {
              type: "tool-call",
              toolCallId: `demo_${Date.now()}`,
              toolName: "reply",
              input: JSON.stringify({ message: describePrompt(options.prompt) }),
            },
          ];
    return { content, finishReason: { unified: content.length ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
  };
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "demo",
    modelId: "sandbox-demo",
    supportedUrls: {},
    doGenerate: generate,
    doStream: async (options) => {
      const result = await generate(options);
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            for (const part of result.content) if (part.type === "tool-call") controller.enqueue(part);
            controller.enqueue({ type: "finish", finishReason: result.finishReason, usage });
            controller.close();
          },
        }),
      };
    },
  };
  return { model, provider: "demo", modelId: "sandbox-demo" };
}
