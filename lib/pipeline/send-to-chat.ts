import type { ChannelAdapter, DeliveryOutcome, MediaSendRequest } from "../channels/types";
import { DeliveryError } from "../channels/types";
import { chatFamily, splitTopicChatId } from "../channels/topic-key";
import type { Database } from "../db/database";
import { markMembership, membershipError, readMembership } from "../db/conversations";
import { findEnvelopeByDedupeKey, insertEnvelope, reclaimRefusedSend } from "../db/envelopes";
import { forkSessionState } from "../db/forks";
import { endEnvelope, envelopeEnded } from "./end-envelope";
import { appendOutboundMessage, confirmKeptMessage, keptMessageOfEnvelope, type OutboundAttachment } from "../db/messages";
import { channelAddress } from "../envelope/address";
import type { PlatformDetails } from "../db/envelope-metadata";
import { publish } from "../events/bus";
import { log } from "../log";
import { sessionOfOutbound } from "./fork-routing";

export type SendDeps = {
  db: Database;
  channels: Record<string, ChannelAdapter>;
  /** A worker's turn's lease: once aborted (another worker runs the turn now) nothing is sent. */
  lease?: AbortSignal;
};

export type SendInput = {
  from: string;
  senderKind: "agent" | "operator";
  senderName: string;
  conversation: { id: number; channel: string; platformChatId: string };
  text: string;
  /** The stored message this answers natively (Telegram reply_parameters). */
  replyTo: { id: number; threadId: number | null; platformMessageId: string | null; platformTopicId?: string | null } | null;
  replyToEnvelopeId: number | null;
  /**
   * The session it is meant for (the fork of the message it answers, of the running
   * task, or the active one). Decided again when written: a fork that ended
   * meanwhile gives it to the session live then (`sessionOfOutbound`).
   */
  forkId: number | null;
  /** At-most-once key: a second delivery with the same key sends nothing. */
  dedupeKey?: string;
  /** An existing pending envelope to deliver (scheduled sends) instead of a new one. */
  envelopeId?: number;
  /** The inbound envelope's platform details (e.g. a LINE reply token). */
  platform?: PlatformDetails;
  /** An automatic notice (the handoff's waiting and timeout messages): not an answer, the user still waits for one. */
  automatic?: boolean;
  /**
   * An operator's file: sent with the adapter's `sendMedia` (`text` is its caption) and
   * recorded as the message's attachment. Its bytes are already in the blob store.
   */
  media?: { send: MediaSendRequest["media"]; attachment: OutboundAttachment };
  /** The bot's membership of the chat as the caller just read it (lib/db/handoff.ts `readReplyGate`); read here when absent. */
  membership?: string | null;
};

/** How a send ended; callers switch on `kind` (never on the error text). */
export type SendResult =
  /** Delivered and saved to the history. */
  | { kind: "sent"; envelopeId: number; messageId: number }
  /**
   * Delivered, but the message could not be saved to the history (`error` says why;
   * the envelope is done with `saveError`). The user has it: never send it again.
   */
  | { kind: "unrecorded"; envelopeId: number; platformMessageId: string; error: string }
  /**
   * Not delivered: "not_sent" (refused, unreachable, no such channel, the bot is
   * blocked) or "unknown" (maybe delivered, kept in the history as such). The
   * envelope ended failed with `error` as its lastDeliveryError.
   */
  | { kind: "failed"; envelopeId: number; outcome: DeliveryOutcome; error: string }
  /** The dedupe key was used before: the earlier send was delivered, or may have been (in flight, or an unknown outcome). Nothing was sent. */
  | { kind: "duplicate"; envelopeId: number | null; earlier: "delivered" | "unknown"; error: string };

/** The session a message meant for `forkId` joins when written now (fork-routing.ts `sessionOfOutbound`). */
async function liveSessionOf(db: Database, forkId: number | null) {
  if (forkId === null) return null;
  const state = await forkSessionState(db, forkId);
  return sessionOfOutbound(state, state?.activeForkId ?? null, forkId);
}

export const POSSIBLY_DELIVERED = "outcome unknown, possibly delivered";

/**
 * The message an earlier attempt of this envelope kept as possibly delivered: a
 * Retry confirms it (or keeps it) instead of adding a second copy to the history.
 */
async function keptMessageOf(db: Database, envelopeId: number | null | undefined) {
  return envelopeId ? keptMessageOfEnvelope(db, envelopeId) : null;
}

/**
 * A send whose outcome is unknown (timeout, 5xx, crash mid-send) stays in the
 * conversation's history, so the model does not repeat itself and the operator
 * sees it; its envelope ends failed, marked possibly delivered, never resent by itself.
 */
export async function keepPossiblyDelivered(
  db: Database,
  envelopeId: number,
  input: Pick<SendInput, "senderKind" | "senderName" | "conversation" | "text" | "replyTo" | "forkId" | "automatic" | "media"> & {
    error: string;
  },
) {
  const message =
    (await keptMessageOf(db, envelopeId)) ??
    (await appendOutboundMessage(db, {
      conversationId: input.conversation.id,
      senderKind: input.senderKind,
      senderName: input.senderName,
      text: input.text,
      platformMessageId: null,
      // Whole seconds, like platform dates: a user message in the same second still sorts after it.
      sentAt: new Date(Math.floor(Date.now() / 1000) * 1000),
      replyTo: input.replyTo,
      forkId: await liveSessionOf(db, input.forkId),
      platformTopicId: input.replyTo?.platformTopicId ?? null,
      keepsWaiting: input.automatic,
      attachment: input.media?.attachment,
    }).catch((error) => {
      log.error("deliver.keep_possibly_delivered_failed", { envelopeId, error });
      return null;
    }));
  await endEnvelope(
    db,
    envelopeId,
    {
      status: "failed",
      error: `${input.error} (${POSSIBLY_DELIVERED}: check the chat before retrying)`,
      ...(message ? { messageId: message.id } : {}),
      metadata: { outcome: "unknown" },
    },
    input.conversation.id,
  );
}

/**
 * Sends one message to a chat and records it, at most once:
 * 1. the outbound envelope is written first (with its dedupe key), so a crash
 *    or a retried turn can never send the same answer twice;
 * 2. the channel adapter sends it as a native reply;
 * 3. the outbound message is appended to the history (whatever else was
 *    written meanwhile: a sent answer is never lost from it);
 * 4. the envelope ends done, or failed with lastDeliveryError for the operator.
 */
export async function sendToChat(deps: SendDeps, input: SendInput): Promise<SendResult> {
  const result = await sendAndRecord(deps, input);
  // Sent, kept as possibly delivered or refused: the timeline shows each.
  publish(deps.db, {
    type: "message",
    conversationId: input.conversation.id,
    ...(result.kind === "sent" ? { messageId: result.messageId } : {}),
  });
  return result;
}

async function sendAndRecord(deps: SendDeps, input: SendInput): Promise<SendResult> {
  // Before the outbound envelope is written: the turn's new holder sends instead (its dedupe key is still free).
  deps.lease?.throwIfAborted();
  const claimed = await claimSend(deps.db, input);
  if (claimed.kind === "duplicate") return claimed;
  const { envelopeId } = claimed;
  const channel = await deliverableChannel(deps, input);
  if (typeof channel === "string") {
    await endEnvelope(deps.db, envelopeId, { status: "failed", error: channel, metadata: { outcome: "not_sent" } }, input.conversation.id);
    return { kind: "failed", envelopeId, outcome: "not_sent", error: channel };
  }
  let sent: PlatformSent;
  try {
    sent = await callPlatform(channel, input);
  } catch (error) {
    return recordFailure(deps.db, envelopeId, input, error);
  }
  return recordSent(deps.db, envelopeId, input, sent);
}

type PlatformSent = Awaited<ReturnType<ChannelAdapter["send"]>>;

/**
 * The at-most-once decision: writes the outbound envelope with its dedupe key (or takes
 * the pending one given) before anything is sent. A key used before gives a duplicate,
 * unless the platform refused that send outright (the user got nothing): it goes again.
 */
async function claimSend(
  db: Database,
  input: SendInput,
): Promise<{ kind: "claimed"; envelopeId: number } | Extract<SendResult, { kind: "duplicate" }>> {
  if (input.envelopeId !== undefined) return { kind: "claimed", envelopeId: input.envelopeId };
  const envelope = await insertEnvelope(db, {
    from: input.from,
    to: channelAddress(input.conversation.channel, input.conversation.platformChatId),
    text: input.text,
    status: "processing" as const,
    conversationId: input.conversation.id,
    replyToEnvelopeId: input.replyToEnvelopeId,
    forkId: await liveSessionOf(db, input.forkId),
    metadata: {
      inReplyToMessageId: input.replyTo?.id ?? null,
      ...(input.media
        ? { media: { kind: input.media.send.kind, fileName: input.media.send.fileName, sha256: input.media.attachment.blobSha256 } }
        : {}),
    },
    dedupeKey: input.dedupeKey ?? null,
  });
  if (envelope) return { kind: "claimed", envelopeId: envelope.id };
  // The key was used before. A send the platform refused outright can go again
  // (the user got nothing); one that went out, or may have, never does.
  const earlier = await findEnvelopeByDedupeKey(db, input.dedupeKey!);
  const refused = earlier?.status === "failed" && earlier.metadata.outcome === "not_sent";
  if (earlier && refused && (await reclaimRefusedSend(db, earlier.id, input.text))) return { kind: "claimed", envelopeId: earlier.id };
  return earlier?.status === "done"
    ? { kind: "duplicate", envelopeId: earlier.id, earlier: "delivered", error: "already replied to this message" }
    : {
        kind: "duplicate",
        envelopeId: earlier?.id ?? null,
        earlier: "unknown",
        error: "an earlier send of this reply may or may not have been delivered",
      };
}

/** The conversation's channel adapter, or why nothing can be sent (not configured; the bot blocked or removed). */
async function deliverableChannel(deps: SendDeps, input: SendInput): Promise<ChannelAdapter | string> {
  const channel = deps.channels[input.conversation.channel];
  if (!channel) return `channel "${input.conversation.channel}" is not configured`;
  // Blocked or removed: the platform would answer 403 to every try. Stop here and say why.
  const membership = input.membership !== undefined ? input.membership : await readMembership(deps.db, input.conversation.id);
  return membership ? membershipError(membership) : channel;
}

/** The platform call: a text as a native reply, or an operator's file with its caption. */
async function callPlatform(channel: ChannelAdapter, input: SendInput): Promise<PlatformSent> {
  const address = {
    chatId: input.conversation.platformChatId,
    replyToPlatformId: input.replyTo?.platformMessageId ?? undefined,
    topicId: input.replyTo?.platformTopicId ?? undefined,
    platform: input.platform,
  };
  if (!input.media) return channel.send({ ...address, text: input.text });
  if (!channel.sendMedia) throw new DeliveryError(`not sent: ${channel.name} takes no files`, { outcome: "not_sent", retryable: false });
  return channel.sendMedia({ ...address, caption: input.text, media: input.media.send });
}

/** A failed platform call: the bot's membership if the platform said so, and the envelope ended failed (kept if maybe delivered). */
async function recordFailure(db: Database, envelopeId: number, input: SendInput, error: unknown): Promise<SendResult> {
  const message = error instanceof DeliveryError ? error.message : `send failed: ${(error as Error).message}`;
  if (error instanceof DeliveryError && error.membership) {
    const family = chatFamily(splitTopicChatId(input.conversation.platformChatId).chatId);
    await markMembership(db, input.conversation.channel, family, error.membership, new Date());
  }
  const outcome: DeliveryOutcome = error instanceof DeliveryError ? error.outcome : "unknown";
  // Terminal: a retry could deliver twice. The operator sees the error and can resend.
  if (outcome === "unknown") {
    await keepPossiblyDelivered(db, envelopeId, { ...input, error: message });
  } else {
    await endEnvelope(db, envelopeId, { status: "failed", error: message, metadata: { outcome } }, input.conversation.id);
  }
  return { kind: "failed", envelopeId, outcome, error: message };
}

/** A delivered message: appended to the history with the envelope ended done, or the one a Retry confirms. */
async function recordSent(db: Database, envelopeId: number, input: SendInput, sent: PlatformSent): Promise<SendResult> {
  const kept = await keptMessageOf(db, input.envelopeId);
  if (kept) {
    // A Retry of a send kept as possibly delivered: that message is now confirmed.
    await confirmKeptMessage(db, kept.id, sent.platformMessageId);
    await endEnvelope(
      db,
      envelopeId,
      { status: "done", messageId: kept.id, metadata: { platformMessageId: sent.platformMessageId } },
      input.conversation.id,
    );
    return { kind: "sent", envelopeId, messageId: kept.id };
  }

  try {
    const message = await appendOutboundMessage(
      db,
      {
        conversationId: input.conversation.id,
        senderKind: input.senderKind,
        senderName: input.senderName,
        text: input.text,
        platformMessageId: sent.platformMessageId,
        sentAt: sent.sentAt,
        replyTo: input.replyTo,
        // Decided after the send: the fork may have ended while it went out.
        forkId: await liveSessionOf(db, input.forkId),
        platformTopicId: input.replyTo?.platformTopicId ?? null,
        keepsWaiting: input.automatic,
        attachment: input.media?.attachment,
      },
      // The envelope ends with the message in one write: never a stored answer on a still-processing send.
      { envelopeId, metadata: { platformMessageId: sent.platformMessageId } },
    );
    envelopeEnded(db, envelopeId, input.conversation.id);
    return { kind: "sent", envelopeId, messageId: message.id };
  } catch (error) {
    const saveError = (error as Error).message || String(error);
    log.error("deliver.save_failed", { envelopeId, error });
    // Sent but not stored: the user has it (done, never resent); the operator sees why it is missing.
    await endEnvelope(
      db,
      envelopeId,
      { status: "done", metadata: { platformMessageId: sent.platformMessageId, saveError } },
      input.conversation.id,
    ).catch((finishError) => log.error("deliver.save_failed_unrecorded", { envelopeId, error: finishError }));
    return {
      kind: "unrecorded",
      envelopeId,
      platformMessageId: sent.platformMessageId,
      error: `delivered, but not saved to the history: ${saveError}`,
    };
  }
}
