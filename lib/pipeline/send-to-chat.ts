import type { ChannelAdapter } from "../channels/types";
import { DeliveryError } from "../channels/types";
import type { Database } from "../db/database";
import { markMembership, membershipError, readMembership } from "../db/conversations";
import { findEnvelopeByDedupeKey, insertEnvelope, finishEnvelope, reclaimRefusedSend } from "../db/envelopes";
import { GenerationConflict, appendOutboundMessage, readGeneration } from "../db/messages";
import { channelAddress } from "../envelope/address";
import { publish } from "../events/bus";
import { log } from "../log";

export type SendDeps = { db: Database; channels: Record<string, ChannelAdapter> };

export type SendInput = {
  from: string;
  senderKind: "agent" | "operator";
  senderName: string;
  conversation: { id: number; channel: string; platformChatId: string };
  text: string;
  /** The stored message this answers natively (Telegram reply_parameters). */
  replyTo: { id: number; threadId: number | null; platformMessageId: string | null; platformTopicId?: string | null } | null;
  replyToEnvelopeId: number | null;
  forkId: number | null;
  /** At-most-once key: a second delivery with the same key sends nothing. */
  dedupeKey?: string;
  /** An existing pending envelope to deliver (scheduled sends) instead of a new one. */
  envelopeId?: number;
  /** The inbound envelope's platform details (e.g. a LINE reply token). */
  platform?: Record<string, unknown>;
};

export type SendResult =
  | { ok: true; envelopeId: number; messageId: number | null }
  | {
      ok: false;
      envelopeId: number | null;
      error: string;
      /** "not_sent": the platform refused; "unknown": maybe delivered (kept in the history as such). */
      outcome?: "not_sent" | "unknown";
      /** The dedupe key was used before: delivered, still in flight, or with an unknown outcome. */
      duplicate?: "delivered" | "unknown";
    };

const MAX_SAVE_ATTEMPTS = 5;

export const POSSIBLY_DELIVERED = "outcome unknown, possibly delivered";

/**
 * The message an earlier attempt of this envelope kept as possibly delivered: a
 * Retry confirms it (or keeps it) instead of adding a second copy to the history.
 */
async function keptMessageOf(db: Database, envelopeId: number | null | undefined) {
  if (!envelopeId) return null;
  const envelope = await db.prisma.envelope.findUnique({ where: { id: envelopeId }, select: { messageId: true } });
  if (!envelope?.messageId) return null;
  return db.prisma.message.findFirst({ where: { id: envelope.messageId, direction: "outbound", platformMessageId: null }, select: { id: true } });
}

/**
 * A send whose outcome is unknown (timeout, 5xx, crash mid-send) stays in the
 * conversation's history, so the model does not repeat itself and the operator
 * sees it; its envelope ends failed, marked possibly delivered, never resent by itself.
 */
export async function keepPossiblyDelivered(
  db: Database,
  envelopeId: number,
  input: Pick<SendInput, "senderKind" | "senderName" | "conversation" | "text" | "replyTo" | "forkId"> & { error: string },
) {
  const message = (await keptMessageOf(db, envelopeId)) ?? await appendOutboundMessage(db, {
    conversationId: input.conversation.id,
    senderKind: input.senderKind,
    senderName: input.senderName,
    text: input.text,
    platformMessageId: null,
    // Whole seconds, like platform dates: a user message in the same second still sorts after it.
    sentAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    replyTo: input.replyTo,
    forkId: input.forkId,
    platformTopicId: input.replyTo?.platformTopicId ?? null,
    expectedGeneration: null,
  }).catch((error) => {
    log.error("deliver.keep_possibly_delivered_failed", { envelopeId, error });
    return null;
  });
  await finishEnvelope(db, envelopeId, {
    status: "failed",
    error: `${input.error} (${POSSIBLY_DELIVERED}: check the chat before retrying)`,
    ...(message ? { messageId: message.id } : {}),
    metadata: { outcome: "unknown" },
  });
}

/**
 * Sends one message to a chat and records it, at most once:
 * 1. the outbound envelope is written first (with its dedupe key), so a crash
 *    or a retried turn can never send the same answer twice;
 * 2. the channel adapter sends it as a native reply;
 * 3. the outbound message is appended with the history generation read before
 *    sending; a concurrent writer makes it re-read and retry, never lose it;
 * 4. the envelope ends done, or failed with lastDeliveryError for the operator.
 */
export async function sendToChat(deps: SendDeps, input: SendInput): Promise<SendResult> {
  const result = await sendAndRecord(deps, input);
  // Sent, kept as possibly delivered or refused: the timeline shows each.
  publish(deps.db, { type: "message", conversationId: input.conversation.id, ...(result.ok && result.messageId ? { messageId: result.messageId } : {}) });
  return result;
}

async function sendAndRecord(deps: SendDeps, input: SendInput): Promise<SendResult> {
  const { db } = deps;
  const to = channelAddress(input.conversation.channel, input.conversation.platformChatId);
  const envelopeData = {
    from: input.from,
    to,
    text: input.text,
    status: "processing" as const,
    conversationId: input.conversation.id,
    replyToEnvelopeId: input.replyToEnvelopeId,
    forkId: input.forkId,
    metadata: { inReplyToMessageId: input.replyTo?.id ?? null },
  };
  let envelopeId = input.envelopeId ?? null;
  if (envelopeId === null) {
    const envelope = await insertEnvelope(db, { ...envelopeData, dedupeKey: input.dedupeKey ?? null });
    if (envelope) envelopeId = envelope.id;
    else {
      // The key was used before. A send the platform refused outright can go again
      // (the user got nothing); one that went out, or may have, never does.
      const earlier = await findEnvelopeByDedupeKey(db, input.dedupeKey!);
      const refused = earlier?.status === "failed" && (earlier.metadata as { outcome?: string }).outcome === "not_sent";
      if (!earlier || !refused || !(await reclaimRefusedSend(db, earlier.id, input.text))) {
        const duplicate = earlier?.status === "done" ? "delivered" : "unknown";
        return { ok: false, envelopeId: earlier?.id ?? null, error: duplicate === "delivered" ? "already replied to this message" : "an earlier send of this reply may or may not have been delivered", duplicate };
      }
      envelopeId = earlier.id;
    }
  }

  const channel = deps.channels[input.conversation.channel];
  if (!channel) {
    const error = `channel "${input.conversation.channel}" is not configured`;
    await finishEnvelope(db, envelopeId, { status: "failed", error });
    return { ok: false, envelopeId, error };
  }

  // Blocked or removed: the platform would answer 403 to every try. Stop here and say why.
  const membership = await readMembership(db, input.conversation.id);
  if (membership) {
    const error = membershipError(membership);
    await finishEnvelope(db, envelopeId, { status: "failed", error, metadata: { outcome: "not_sent" } });
    return { ok: false, envelopeId, error, outcome: "not_sent" };
  }

  let generation = await readGeneration(db, input.conversation.id);
  let sent;
  try {
    sent = await channel.send({
      chatId: input.conversation.platformChatId,
      text: input.text,
      replyToPlatformId: input.replyTo?.platformMessageId ?? undefined,
      topicId: input.replyTo?.platformTopicId ?? undefined,
      platform: input.platform,
    });
  } catch (error) {
    const message = error instanceof DeliveryError ? error.message : `send failed: ${(error as Error).message}`;
    if (error instanceof DeliveryError && error.membership) await markMembership(db, input.conversation.id, error.membership, new Date());
    const outcome = error instanceof DeliveryError ? error.outcome : "unknown";
    // Terminal: a retry could deliver twice. The operator sees the error and can resend.
    if (outcome === "unknown") {
      await keepPossiblyDelivered(db, envelopeId, { ...input, error: message });
    } else {
      await finishEnvelope(db, envelopeId, { status: "failed", error: message, metadata: { outcome } });
    }
    return { ok: false, envelopeId, error: message, outcome };
  }

  const kept = await keptMessageOf(db, input.envelopeId);
  if (kept) {
    // A Retry of a send kept as possibly delivered: that message is now confirmed.
    await db.prisma.message.update({ where: { id: kept.id }, data: { platformMessageId: sent.platformMessageId } });
    await finishEnvelope(db, envelopeId, { status: "done", messageId: kept.id, metadata: { platformMessageId: sent.platformMessageId } });
    return { ok: true, envelopeId, messageId: kept.id };
  }

  for (let attempt = 1; ; attempt++) {
    try {
      const message = await appendOutboundMessage(db, {
        conversationId: input.conversation.id,
        senderKind: input.senderKind,
        senderName: input.senderName,
        text: input.text,
        platformMessageId: sent.platformMessageId,
        sentAt: sent.sentAt,
        replyTo: input.replyTo,
        forkId: input.forkId,
        platformTopicId: input.replyTo?.platformTopicId ?? null,
        // The message is out: the last attempt records it whatever else was written
        // meanwhile, so a busy conversation never loses a sent answer from its history.
        expectedGeneration: attempt < MAX_SAVE_ATTEMPTS ? generation : null,
      });
      await finishEnvelope(db, envelopeId, { status: "done", messageId: message.id, metadata: { platformMessageId: sent.platformMessageId } });
      return { ok: true, envelopeId, messageId: message.id };
    } catch (error) {
      if (error instanceof GenerationConflict && attempt < MAX_SAVE_ATTEMPTS) {
        generation = await readGeneration(db, input.conversation.id);
        continue;
      }
      log.error("deliver.save_failed", { envelopeId, error });
      // Sent but not stored: record what we know so the operator sees it.
      await finishEnvelope(db, envelopeId, {
        status: "done",
        metadata: { platformMessageId: sent.platformMessageId, saveError: (error as Error).message },
      }).catch(() => {});
      return { ok: false, envelopeId, error: "failed to save message" };
    }
  }
}
