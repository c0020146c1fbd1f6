import { z } from "zod";
import { reachesConversation, refuseConversationOutOfScope } from "../auth/bot-scope";
import type { Caller } from "../auth/operators";
import { type BotScope, inScope } from "../db/conversation-scope";
import type { Database } from "../db/database";
import { findConversationByChat } from "../db/conversations";
import { publish } from "../events/bus";
import { createEnvelope, findEnvelope, listEnvelopes, takeAgentMail, type EnvelopeStatus } from "../db/envelopes";
import { parseAddress } from "../envelope/address";
import { parseDeliverAt } from "../envelope/deliver-at";
import type { SendEnvelopeInput } from "../envelope/send-schema";
import { AppError, notFound } from "../errors";
import { settingsFor } from "../settings/reader";
import { platformOf } from "../bots/bot-config";
import { startBackgroundTask } from "./forks";
import { recordIdParam } from "../record-id";

export { sendEnvelopeSchema, type SendEnvelopeInput } from "../envelope/send-schema";

export const listEnvelopesSchema = z.object({
  to: z.string().max(200).optional(),
  from: z.string().max(200).optional(),
  address: z.string().max(200).optional(),
  status: z.enum(["pending", "processing", "done", "failed"]).optional(),
  conversation: recordIdParam.optional(),
  scheduled: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => v === "true"),
  before: recordIdParam.optional(),
  take: z.coerce.number().int().min(1).max(500).default(100),
});

/**
 * Accepts an envelope from the API: addresses validated, the reply target must
 * exist, a session operator may only send as themself, and an agent may send to
 * channel:<adapter>:… only when bound to that adapter (403, nothing stored).
 * Channel mail is delivered by the worker at deliverAt (now when absent).
 */
export async function sendEnvelope(db: Database, input: SendEnvelopeInput, caller: Caller, now = new Date()) {
  const from = parseAddress(input.from);
  const to = parseAddress(input.to);
  if (caller.via === "session" && !(from.kind === "operator" && from.name === caller.operator.name)) {
    throw new AppError("forbidden", `signed in as ${caller.operator.name}: send from operator:${caller.operator.name}`);
  }
  if (from.kind === "agent" && to.kind === "channel") {
    const { agentBindings } = await settingsFor(db);
    const bound = Object.hasOwn(agentBindings, from.name) ? agentBindings[from.name] : [];
    // Bound to "telegram" covers every Telegram bot ("telegram-7"), as to "line" every LINE channel.
    if (!bound.includes(to.adapter) && !bound.includes(platformOf(to.adapter))) {
      throw new AppError("forbidden", `agent:${from.name} is not bound to the ${to.adapter} adapter (settings → agentBindings)`);
    }
  }
  let conversationId: number | null = null;
  if (to.kind === "channel") {
    const conversation = await findConversationByChat(db, to.adapter, to.chatId);
    // Another bot's chat is as unknown to an agent limited to some bots (lib/auth/bot-scope.ts).
    if (!conversation || !inScope(caller.bots, conversation.botId)) throw new AppError("not_found", `no conversation ${input.to} is known`);
    conversationId = conversation.id;
  }
  if (input.conversationId) await refuseConversationOutOfScope(db, caller.bots, input.conversationId);
  const deliverAt = parseDeliverAt(input.deliverAt, now);
  if (to.kind === "agent" && input.conversationId) {
    // Mail for this instance's agent about a conversation is a background task: a fork.
    const { agentName } = await settingsFor(db);
    if (to.name === agentName)
      return (await startBackgroundTask(db, { conversationId: input.conversationId, task: input.text, from: input.from, deliverAt }))
        .envelope;
  }
  const parent = input.replyTo ? await findEnvelope(db, input.replyTo) : null;
  // A reply joins its parent's conversation: one of another bot's is as unknown as a missing one.
  if (input.replyTo && !(parent && (await reachesConversation(db, caller.bots, parent.conversationId))))
    throw notFound(`envelope ${input.replyTo}`);
  const envelope = await createEnvelope(db, {
    from: input.from,
    to: input.to,
    text: input.text,
    deliverAt,
    replyToEnvelopeId: parent?.id ?? null,
    conversationId: conversationId ?? parent?.conversationId ?? null,
    // The caller's keys stay in their namespace: none of them can act as a control flag.
    metadata: { ...(input.metadata ? { client: input.metadata } : {}), sentBy: caller.operator.name },
  });
  publish(db, { type: "envelope", envelopeId: envelope.id, conversationId: envelope.conversationId });
  return envelope;
}

/**
 * Lists envelopes; never changes them (GET must not: a cross-site link would consume an agent's mail).
 * A caller limited to some bots (`bots`) sees their conversations' envelopes and those of none.
 */
export async function queryEnvelopes(db: Database, query: z.infer<typeof listEnvelopesSchema>, bots?: BotScope, now = new Date()) {
  const envelopes = await listEnvelopes(
    db,
    { ...query, status: query.status as EnvelopeStatus | undefined, beforeId: query.before, conversationId: query.conversation, bots },
    now,
  );
  // A full page may have more behind it: the next page is ?before=<the last id>.
  return { envelopes, nextBefore: envelopes.length === query.take ? envelopes[envelopes.length - 1].id : null };
}

export const receiveMailSchema = z.object({
  to: z
    .string()
    .max(200)
    .refine((v) => {
      try {
        return parseAddress(v).kind === "agent";
      } catch {
        return false;
      }
    }, "an agent address (agent:<name>)"),
  take: z.number().int().min(1).max(500).default(100),
});

/**
 * How an agent receives its mail (POST /envelopes/receive): its due pending
 * envelopes, each marked done as it is handed over, so each is received at most once.
 * A caller limited to some bots (`bots`) takes only mail about their conversations (or none); the rest stays pending.
 */
export async function receiveAgentMail(db: Database, input: z.infer<typeof receiveMailSchema>, bots?: BotScope, now = new Date()) {
  return { envelopes: await takeAgentMail(db, input.to, now, input.take, bots), acknowledged: true as const };
}
