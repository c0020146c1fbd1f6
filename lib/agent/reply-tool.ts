import { tool, zodSchema } from "ai";
import { z } from "zod";
import { OUTBOUND_TEXT_LIMIT } from "../channels/text-limit";

export const replyInputSchema = z.object({
  message: z.string().min(1).max(OUTBOUND_TEXT_LIMIT).describe("The message to send to the chat, as plain text."),
});

/**
 * Wrapped once: the AI SDK turns a bare zod schema into JSON Schema on every call
 * (a fresh wrapper each time); this wrapper keeps the JSON Schema after the first.
 */
const replyInput = zodSchema(replyInputSchema);

export type ReplyOutcome = { status: "sent" } | { error: string };

/**
 * The `reply` tool: the model's only way to say anything. A factory, because
 * each turn binds its own send function and its own once-per-turn guard. The
 * guard is taken before sending, so two calls in one step cannot both send.
 */
export function createReplyTool(deps: { sendReply: (message: string) => Promise<ReplyOutcome> }) {
  let used = false;
  return tool({
    description:
      "Send your answer to the chat as a reply to the user's message. Call at most once per turn; do not call it when no answer is needed.",
    inputSchema: replyInput,
    strict: true,
    execute: async ({ message }): Promise<ReplyOutcome> => {
      if (used) return { error: "you already replied in this turn; this second reply was not sent" };
      // U+0000 means nothing in a chat and PostgreSQL cannot store it: dropped, like in what users send.
      const text = message.replaceAll("\u0000", "");
      if (!text.trim()) return { error: "the message is empty; nothing was sent" };
      used = true;
      return deps.sendReply(text);
    },
  });
}
