import { tool, zodSchema } from "ai";
import { z } from "zod";

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

export type HandoffOutcome = { status: "handed off" } | { error: string };

/**
 * The `handoff` tool: the model passes the conversation to a human operator. Like
 * `reply`, a factory (each turn binds its own request function and once-per-turn
 * guard, taken before the request so two calls in one step cannot both run). It
 * may be called in the same turn as `reply` ("I'm passing you to a colleague").
 * Failures come back as short errors the model can act on, never as exceptions.
 */
export function createHandoffTool(deps: { requestHandoff: (reason: string) => Promise<HandoffOutcome> }) {
  let used = false;
  return tool({
    description:
      "Hand this conversation to a human operator: you stop answering until they hand it back, and the user is told a person will reply. Call at most once per turn, with the reason. You may also call `reply` in the same turn to tell the user.",
    inputSchema: handoffInput,
    strict: true,
    execute: async ({ reason }): Promise<HandoffOutcome> => {
      if (used) return { error: "you already handed off in this turn; this second call did nothing" };
      used = true;
      // U+0000 means nothing and PostgreSQL cannot store it.
      return deps.requestHandoff(reason.replaceAll("\u0000", "") || "(no reason given)");
    },
  });
}
