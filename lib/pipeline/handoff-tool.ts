import { tool, zodSchema } from "ai";
import { z } from "zod";
import { AppError } from "../errors";
import { log } from "../log";
import type { TurnToolContext } from "./turn-deps";

export const handoffInputSchema = z
  .object({
    reason: z.string().min(1).max(500).describe("Why a person should take over, in one short sentence, for the operator."),
  })
  .strict();

/**
 * Wrapped once: the AI SDK turns a bare zod schema into JSON Schema on every call
 * (a fresh wrapper each time); this wrapper keeps the JSON Schema after the first.
 */
const handoffInput = zodSchema(handoffInputSchema);

/** What the model is shown of `handoff`: the live tool and a replay's capturing one (lib/replay) share it. */
export const handoffToolDefinition = {
  description:
    "Hand this conversation to a human operator: you stop answering until they hand it back, and the user is told a person will reply. Call at most once per turn, with the reason. You may also call `reply` in the same turn to tell the user.",
  inputSchema: handoffInput,
  strict: true,
} as const;

export type HandoffOutcome = { status: "handed off" } | { error: string };

/**
 * The `handoff` tool: the model passes the conversation to a human operator. Like
 * `reply`, a factory given the turn: its `execute` requests the handoff (the
 * waiting message tells the user) and records the call, behind a once-per-turn
 * guard taken before the request so two calls in one step cannot both run. It
 * may be called in the same turn as `reply` ("I'm passing you to a colleague").
 * Failures come back as short errors the model can act on, never as exceptions.
 */
export function createHandoffTool(turn: TurnToolContext) {
  let used = false;
  let handedOff = false;
  const handoff = tool({
    ...handoffToolDefinition,
    execute: async ({ reason }): Promise<HandoffOutcome> => {
      if (used) return { error: "you already handed off in this turn; this second call did nothing" };
      used = true;
      // U+0000 means nothing and PostgreSQL cannot store it.
      const outcome = await requestHandoff(turn, reason.replaceAll("\u0000", "") || "(no reason given)");
      handedOff = "status" in outcome;
      turn.calls.push({ tool: "handoff", message: reason, outcome });
      return outcome;
    },
  });
  return { tool: handoff, handedOff: () => handedOff };
}

async function requestHandoff(
  { deps, envelope, conversationId, settings, beforeSend }: TurnToolContext,
  reason: string,
): Promise<HandoffOutcome> {
  try {
    // The waiting message is threaded under the turn's envelope but not a native reply: a
    // `reply` in the same step replies to that message at the same moment (one thread root).
    await beforeSend?.();
    const replyTo = { envelopeId: envelope.id, message: null };
    await deps.requestHandoff(deps, { conversationId, reason, by: envelope.to, replyTo, settings });
    return { status: "handed off" };
  } catch (e) {
    if (!(e instanceof AppError)) log.warn("agent.handoff_failed", { envelopeId: envelope.id, error: (e as Error).message });
    return {
      error:
        e instanceof AppError && e.code === "conflict" ? `not handed off: ${e.message}` : "the handoff failed; answer the user yourself",
    };
  }
}
