import { z } from "zod";

/**
 * Envelope `metadata`: what the server records about an envelope, one typed key each.
 * The server writes it only through lib/db/envelopes.ts (and the ingest insert) with
 * this type, and reads it with `readEnvelopeMetadata`. API callers never write these
 * keys: their own data is kept under `client`, which no code reads (docs/API.md).
 * `lastDeliveryError` is not here: it is the envelope's column, stored once.
 *
 * Rows written by older versions may carry keys that are gone or values of another
 * type: a read drops what it does not know (a wrong type reads as absent), never throws.
 * A new key is one line below.
 */
const tolerant = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** Platform details an adapter needs later (a LINE reply token, its receipt time, a quote token). Never shown to the model. */
export const platformDetailsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
export type PlatformDetails = z.infer<typeof platformDetailsSchema>;

export const envelopeMetadataSchema = z.object({
  // An inbound chat message (lib/db/ingest.ts).
  /** The platform's id of the message (inbound), or of the message that went out (outbound). */
  platformMessageId: tolerant(z.string()),
  updateId: tolerant(z.string()),
  /** Control flag: a reply to a background fork while another interactive fork is open; the turn sends FORK_CONFLICT_NOTICE. */
  forkConflict: tolerant(z.boolean()),
  /** Control flag: the message is part of an album (media group); its turn waits for the album's last part. */
  mediaGroup: tolerant(z.boolean()),
  /** Control data: the adapter's details for answering (LINE reply token). */
  platform: tolerant(platformDetailsSchema),
  /** Why no turn ran (agent paused, not addressed to the bot, no model configured). */
  skipped: tolerant(z.string()),

  // How the turn for an inbound message ended (lib/pipeline/agent-turn.ts).
  /** Whether the user got an answer: "unknown" when the platform did not confirm it. */
  replied: tolerant(z.union([z.boolean(), z.literal("unknown")])),
  /** The outbound envelope that carried the answer. */
  answerEnvelopeId: tolerant(z.number().int()),
  /** A burst answered by one turn: its envelopes, and the one the turn ran for. */
  burst: tolerant(z.array(z.number().int())),
  turnEnvelopeId: tolerant(z.number().int()),
  modelError: tolerant(z.string()),
  turnError: tolerant(z.string()),
  /** Answered by an earlier, crashed attempt of the same burst. */
  recovered: tolerant(z.boolean()),
  /** A notice sent instead of a model turn ("fork conflict"). */
  notice: tolerant(z.string()),
  /** An operator's Regenerate (lib/api/messages/regenerate-message.ts): the answer it replaced, and how. */
  regenerate: tolerant(z.object({ messageId: z.number(), mode: z.enum(["edited", "sent"]), by: z.string() })),

  // An outbound send (lib/pipeline/send-to-chat.ts).
  /** The stored message the send answers, to thread a send kept after a crash. */
  inReplyToMessageId: tolerant(z.number().int().nullable()),
  /** A failed send: "not_sent" (refused, may go again) or "unknown" (maybe delivered, never resent). */
  outcome: tolerant(z.enum(["not_sent", "unknown"])),
  /** Delivered, but the message could not be saved to the history. */
  saveError: tolerant(z.string()),
  /** An operator's file (lib/pipeline/operator-media.ts): how it went out, and which stored bytes. Never resent by Retry. */
  media: tolerant(z.object({ kind: z.string(), fileName: z.string(), sha256: z.string() })),

  // Human handoff (lib/pipeline/handoff.ts): a transition's record, the user's envelope
  // that started it (`via`), or an envelope left unanswered for a human (`state`).
  handoff: tolerant(
    z.object({
      action: z.enum(["request", "take", "release"]).optional(),
      state: z.enum(["waiting", "assigned"]).nullable().optional(),
      reason: z.string().optional(),
      operator: z.string().optional(),
      via: z.enum(["tool", "command"]).optional(),
      /** Why a user's request was not carried out (the per-user limit). */
      refused: z.string().optional(),
    }),
  ),

  // The team inbox (lib/pipeline/conversation-status.ts): a status, assignee, priority or
  // label change, by an operator, the user's message (reopen, wake) or the snooze timer.
  inbox: tolerant(
    z.object({
      action: z.enum(["resolve", "reopen", "snooze", "wake", "assign", "unassign", "priority", "label"]),
      priority: z.string().optional(),
      /** label: the names put on and taken off, as they were named then. */
      added: z.array(z.string()).optional(),
      removed: z.array(z.string()).optional(),
      status: z.enum(["open", "resolved", "snoozed"]).optional(),
      snoozedUntil: z.string().nullable().optional(),
      assigneeId: z.number().int().nullable().optional(),
      by: z.string().optional(),
    }),
  ),

  // Mail.
  /** The operator whose session or token sent it through the API. */
  sentBy: tolerant(z.string()),
  /** The API caller's own data (POST /envelopes `metadata`), kept as given and never read by the server. */
  client: tolerant(z.record(z.string(), z.unknown())),
});

export type EnvelopeMetadata = z.infer<typeof envelopeMetadataSchema>;

/** Parses stored metadata (a JSON value, or its text on the hand-written SQL path); tolerant of older rows. */
export function readEnvelopeMetadata(stored: unknown): EnvelopeMetadata {
  let value = stored;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      value = {};
    }
  }
  const parsed = envelopeMetadataSchema.safeParse(value);
  return parsed.success ? parsed.data : {};
}
