import { diffLines } from "diff";
import type { ModelMessage } from "ai";

export type DiffLine = { op: "same" | "added" | "removed"; text: string };

/** A prompt as lines of text: the system prompt, then each message under its role. */
export function promptText(prompt: {
  system: string;
  messages: readonly ModelMessage[] | readonly { role: string; content: unknown }[];
}): string {
  const parts = [`[system]\n${prompt.system}`];
  for (const m of prompt.messages) {
    const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2);
    parts.push(`[${m.role}]\n${content}`);
  }
  return `${parts.join("\n\n")}\n`;
}

/** The replay's prompt against the original's, line by line (the `diff` library's line diff). */
export function promptDiff(original: string, replay: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const change of diffLines(original, replay)) {
    const op = change.added ? "added" : change.removed ? "removed" : "same";
    const text = change.value.endsWith("\n") ? change.value.slice(0, -1) : change.value;
    for (const line of text.split("\n")) lines.push({ op, text: line });
  }
  return lines;
}
