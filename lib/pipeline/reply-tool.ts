import { tool, zodSchema } from "ai";
import { z } from "zod";
import { OUTBOUND_TEXT_LIMIT } from "../channels/text-limit";
import { readReplyGate } from "../db/handoff";
import { log } from "../log";
import { agentStaysSilent } from "./handoff-rules";
import { sendToChat, type SendInput } from "./send-to-chat";
import type { TurnToolContext } from "./turn-deps";

export const replyInputSchema = z.object({
  message: z.string().min(1).max(OUTBOUND_TEXT_LIMIT).describe("The message to send to the chat, as plain text."),
});

/**
 * Wrapped once: the AI SDK turns a bare zod schema into JSON Schema on every call
 * (a fresh wrapper each time); this wrapper keeps the JSON Schema after the first.
 */
const replyInput = zodSchema(replyInputSchema);

/** What the model is shown of `reply`: the live tool and a replay's capturing one (lib/replay) share it. */
export const replyToolDefinition = {
  description:
    "Send your answer to the chat as a reply to the user's message. Call at most once per turn; do not call it when no answer is needed.",
  inputSchema: replyInput,
  strict: true,
} as const;

/** What the model reads back from a call. */
export type ReplyOutcome = { status: "sent" } | { error: string };

/**
 * What became of the turn's reply, for the turn to record; null while none was tried.
 * - sent: the user has it (`answerEnvelopeId` null when an earlier attempt delivered it;
 *   `unrecorded` says why it is missing from the history, if it is);
 * - not_delivered: refused (`not_sent`) or the platform did not confirm it (`unknown`);
 * - silenced: a human has the conversation now; nothing was sent.
 */
export type ReplyResult =
  | { kind: "sent"; answerEnvelopeId: number | null; unrecorded: string | null }
  | { kind: "not_delivered"; outcome: "not_sent" | "unknown"; error: string }
  | { kind: "silenced" };

const MAY_NOT_HAVE_ARRIVED = "the reply may not have reached the user (the platform did not confirm it); it was not sent again";

/**
 * The `reply` tool: the model's only way to say anything. A factory, because each
 * turn binds its own delivery and its own once-per-turn guard; its `execute`
 * sends (at most once, under the turn's dedupe key) and records the call. The
 * guard is taken before sending, so two calls in one step cannot both send.
 */
export function createReplyTool(
  turn: TurnToolContext & {
    delivery: Omit<SendInput, "text" | "dedupeKey">;
    /** This turn's own handoff (reply + handoff in one turn) does not silence the reply. */
    handedOff: () => boolean;
  },
) {
  let used = false;
  let result: ReplyResult | null = null;
  const reply = tool({
    ...replyToolDefinition,
    execute: async ({ message }): Promise<ReplyOutcome> => {
      if (used) return { error: "you already replied in this turn; this second reply was not sent" };
      // U+0000 means nothing in a chat and PostgreSQL cannot store it: dropped, like in what users send.
      const text = message.replaceAll("\u0000", "");
      if (!text.trim()) return { error: "the message is empty; nothing was sent" };
      used = true;
      const sent = await sendReply(turn, text);
      result = sent.result;
      const drafts = turn.draftsShown?.() ?? 0;
      turn.calls.push({ message: text, outcome: sent.outcome, ...(drafts ? { drafts } : {}) });
      return sent.outcome;
    },
  });
  return { tool: reply, result: () => result };
}

async function sendReply(
  turn: Parameters<typeof createReplyTool>[0],
  text: string,
): Promise<{ result: ReplyResult; outcome: ReplyOutcome }> {
  const { deps, envelope } = turn;
  const gate = await readReplyGate(deps.db, turn.conversationId);
  // The turn began while the agent had the conversation; an operator may have taken it since.
  if (!turn.handedOff() && agentStaysSilent(gate.handoffState))
    return { result: { kind: "silenced" }, outcome: { error: "not sent: a human operator has this conversation now; say nothing more" } };
  // Nothing else shows in the chat once the answer is on its way: the typing indicator and the draft stop first.
  await turn.beforeSend?.();
  const sent = await sendToChat(deps, { ...turn.delivery, text, dedupeKey: `reply:${envelope.id}`, membership: gate.membership });
  switch (sent.kind) {
    case "sent":
      return { result: { kind: "sent", answerEnvelopeId: sent.envelopeId, unrecorded: null }, outcome: { status: "sent" } };
    case "unrecorded":
      // The user has it: the turn is answered (never retried into a second copy).
      log.warn("agent.reply_unrecorded", { envelopeId: envelope.id, answerEnvelopeId: sent.envelopeId, error: sent.error });
      return { result: { kind: "sent", answerEnvelopeId: sent.envelopeId, unrecorded: sent.error }, outcome: { status: "sent" } };
    case "duplicate":
      if (sent.earlier === "delivered")
        return {
          result: { kind: "sent", answerEnvelopeId: null, unrecorded: null },
          outcome: { error: "you already answered this message" },
        };
      return { result: { kind: "not_delivered", outcome: "unknown", error: sent.error }, outcome: { error: MAY_NOT_HAVE_ARRIVED } };
    case "failed":
      log.warn("agent.reply_failed", { envelopeId: envelope.id, error: sent.error, outcome: sent.outcome });
      // Never "you already answered" unless it was: the model (and the operator) must not be told the user got it.
      return {
        result: { kind: "not_delivered", outcome: sent.outcome, error: sent.error },
        outcome: { error: sent.outcome === "unknown" ? MAY_NOT_HAVE_ARRIVED : "failed to send reply" },
      };
  }
}
