import { z } from "zod";
import { listEnvelopesSchema, receiveMailSchema, sendEnvelopeSchema } from "../../pipeline/envelopes";
import { defineOperations, isoDate, storedJson } from "../operation";

export const envelopeStatus = z.enum(["pending", "processing", "done", "failed"]);

/** An envelope, every column (the Envelope table). */
export const envelopeRow = z.strictObject({
  id: z.number().int(),
  /** Addresses: channel:<adapter>:<chat>, agent:<name>, operator:<name>. */
  from: z.string(),
  to: z.string(),
  status: envelopeStatus,
  text: z.string(),
  deliverAt: isoDate.nullable(),
  replyToEnvelopeId: z.number().int().nullable(),
  threadRootId: z.number().int().nullable(),
  conversationId: z.number().int().nullable(),
  messageId: z.number().int().nullable(),
  forkId: z.number().int().nullable(),
  metadata: storedJson(z.record(z.string(), z.unknown())),
  lastDeliveryError: z.string().nullable(),
  attempts: z.number().int(),
  dedupeKey: z.string().nullable(),
  /** The worker holding it, and until when. */
  claimedBy: z.string().nullable(),
  leaseUntil: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  doneAt: isoDate.nullable(),
});

/** An envelope with the agent turn it started, if any (for the prompt inspector link). */
export const envelopeWithTurn = envelopeRow.extend({ turn: z.strictObject({ id: z.number().int() }).nullable() });

export const envelopeListResponse = z.strictObject({
  envelopes: z.array(envelopeWithTurn),
  /** Pass as ?before= for the next (older) page; null on the last page. */
  nextBefore: z.number().int().nullable(),
});
export const envelopeResponse = z.strictObject({ envelope: envelopeWithTurn });
export const sentEnvelopeResponse = z.strictObject({ envelope: envelopeRow });
export const receivedMailResponse = z.strictObject({ envelopes: z.array(envelopeRow), acknowledged: z.literal(true) });
export const retriedEnvelopeResponse = z.strictObject({
  envelope: envelopeRow,
  /** turn: agent mail runs again from scratch; send: channel mail goes out again. */
  retried: z.enum(["turn", "send"]),
});

/** An envelope in a thread: the columns the thread view shows and its depth below the root. */
export const threadEnvelope = z.strictObject({
  id: z.number().int(),
  from: z.string(),
  to: z.string(),
  status: envelopeStatus,
  text: z.string(),
  replyToEnvelopeId: z.number().int().nullable(),
  lastDeliveryError: z.string().nullable(),
  createdAt: isoDate,
  depth: z.number().int(),
});
export const envelopeThreadResponse = z.strictObject({
  envelopeId: z.number().int(),
  root: z.number().int(),
  /** From the root down to the envelope. */
  chain: z.array(threadEnvelope),
  /** The whole tree below the root, by depth. */
  tree: z.array(threadEnvelope),
});

export { listEnvelopesSchema, receiveMailSchema, sendEnvelopeSchema };

export const operations = defineOperations([
  {
    method: "post",
    path: "/envelopes",
    summary: "Send an envelope (deliverAt: ISO time or +30m/+2h); to this instance's agent with conversationId, a background task",
    body: sendEnvelopeSchema,
    response: { status: 201, schema: sentEnvelopeResponse },
    errors: {
      403: "An agent not bound to the channel's adapter, or a session operator sending as someone else",
      404: "An unknown chat, conversation or replyTo envelope, or (for an agent limited to some bots) one of another bot's",
    },
  },
  {
    method: "get",
    path: "/envelopes",
    summary: "List envelopes, newest first (changes nothing); an agent limited to some bots sees their bots' and those of no conversation",
    query: listEnvelopesSchema,
    response: { status: 200, schema: envelopeListResponse },
  },
  {
    method: "post",
    path: "/envelopes/receive",
    summary: "An agent receives its due pending mail; each envelope is marked done as it is handed over (at most once)",
    body: receiveMailSchema,
    response: { status: 200, schema: receivedMailResponse },
  },
  {
    method: "get",
    path: "/envelopes/{id}",
    summary: "One envelope with its metadata",
    response: { status: 200, schema: envelopeResponse },
  },
  {
    method: "post",
    path: "/envelopes/{id}/retry",
    summary: "Retry a failed envelope: a failed turn runs again, a failed send goes out again",
    response: { status: 200, schema: retriedEnvelopeResponse },
    errors: { 409: "The envelope is not failed" },
  },
  {
    method: "get",
    path: "/envelopes/{id}/thread",
    summary: "The chain to the root and the tree below it (one query)",
    response: { status: 200, schema: envelopeThreadResponse },
  },
]);
