import { attachmentView } from "../../media/attachment-views";
import { z } from "zod";
import { envelopeStatus } from "../envelopes/schema";
import { defineOperations, isoDate, storedJson } from "../operation";

/** One agent turn: exactly what the model was shown and what it did (the Turn table, with its envelope). */
export const turnResponse = z.strictObject({
  id: z.number().int(),
  envelopeId: z.number().int(),
  conversationId: z.number().int(),
  forkId: z.number().int().nullable(),
  model: z.string(),
  system: z.string(),
  /** The messages the model was given. */
  prompt: storedJson(z.array(z.looseObject({ role: z.string(), content: z.unknown() }))),
  /** Each tool call: the reply's message (or the handoff's reason, `tool: "handoff"`) and what became of it. */
  toolCalls: storedJson(
    z.array(
      z.looseObject({
        tool: z.literal("handoff").optional(),
        message: z.string(),
        outcome: z.unknown(),
        /** Draft updates the user saw while the reply was written (Telegram sendMessageDraft). */
        drafts: z.number().int().optional(),
      }),
    ),
  ),
  usage: storedJson(z.record(z.string(), z.unknown())),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  /** Token counts read from `usage` (null when the provider reported none); cached input is part of input. */
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  cachedInputTokens: z.number().int().nullable(),
  /** US dollars at the price table's prices when the turn ran; null when the model had no price. */
  costUsd: z.number().nullable(),
  /** A regenerate's turn (POST /messages/{id}/regenerate): the turn whose answer it replaced. */
  regeneratesTurnId: z.number().int().nullable(),
  /** The regenerates' turns that replaced this turn's answer, oldest first. */
  regeneratedBy: z.array(z.number().int()),
  createdAt: isoDate,
  envelope: z.strictObject({ id: z.number().int(), messageId: z.number().int().nullable(), status: envelopeStatus }),
  /** The turns just before and after this one in the same conversation (the inspector's previous/next). */
  previousTurnId: z.number().int().nullable(),
  /** The files of the message the turn answered (what the prompt's media lines describe). */
  attachments: z.array(attachmentView),
  nextTurnId: z.number().int().nullable(),
  /** The bot whose conversation this is (it answered with `model`), or null for rows from before bots were records. */
  bot: z.strictObject({ id: z.number().int(), name: z.string(), platform: z.string(), username: z.string().nullable() }).nullable(),
});

/** The agent turn behind a message: the user's message it answered, or the agent's answer. */
export const messageTurnResponse = z.strictObject({ turnId: z.number().int() });

export const operations = defineOperations([
  {
    method: "get",
    path: "/messages/{id}/turn",
    summary: "The agent turn behind a message (the user's message it answered, or the agent's answer); 404 when no turn ran for it",
    response: { status: 200, schema: messageTurnResponse },
  },
  {
    method: "get",
    path: "/turns/{id}",
    summary: "Prompt inspector: the system prompt, messages, tool calls, usage and latency of one agent turn",
    response: { status: 200, schema: turnResponse },
  },
]);
