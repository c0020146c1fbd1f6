import { tool } from "ai";
import type { HandoffOutcome } from "../pipeline/handoff-tool";
import { handoffToolDefinition } from "../pipeline/handoff-tool";
import type { ReplyOutcome } from "../pipeline/reply-tool";
import { replyToolDefinition } from "../pipeline/reply-tool";
import type { ToolCallRecord } from "../pipeline/turn-deps";

/** What a replay's model did: its answer and its handoff, captured instead of carried out. */
export type Captured = { reply: string | null; handoff: string | null; calls: ToolCallRecord[] };

/**
 * The live turn's `reply` and `handoff`, as the model sees them (same description,
 * schema and strictness), whose `execute` only records: nothing reaches a platform,
 * the history or the queue. The model reads back what a live turn's model would on
 * success, so it behaves as it would have.
 */
export function captureTools() {
  const captured: Captured = { reply: null, handoff: null, calls: [] };
  const reply = tool({
    ...replyToolDefinition,
    execute: async ({ message }): Promise<ReplyOutcome> => {
      if (captured.reply !== null) return { error: "you already replied in this turn; this second reply was not sent" };
      const text = message.replaceAll("\u0000", "");
      if (!text.trim()) return { error: "the message is empty; nothing was sent" };
      captured.reply = text;
      captured.calls.push({ message: text, outcome: { status: "sent" } });
      return { status: "sent" };
    },
  });
  const handoff = tool({
    ...handoffToolDefinition,
    execute: async ({ reason }): Promise<HandoffOutcome> => {
      if (captured.handoff !== null) return { error: "you already handed off in this turn; this second call did nothing" };
      captured.handoff = reason.replaceAll("\u0000", "") || "(no reason given)";
      captured.calls.push({ tool: "handoff", message: captured.handoff, outcome: { status: "handed off" } });
      return { status: "handed off" };
    },
  });
  return { tools: { reply, handoff }, captured };
}
