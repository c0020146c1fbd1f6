import type { InboundMessage } from "../channels/types";
import { channelAddress } from "../envelope/address";
import type { Db } from "./client";
import { log } from "../log";
import { isUniqueViolation } from "./errors";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export type StoreInboundOptions = {
  /** Address of the agent that receives the inbound envelope. */
  agent: string;
  /** Decides from the stored reply target whether the agent answers. */
  answers: (input: { repliesToBot: boolean }) => boolean;
  /** A reply to a background fork's message resumes it while the fork is younger than this. */
  forkReplyTtlMs: number;
  /** Without a model nothing would answer: the envelope is done at once, waiting for an operator. */
  modelConfigured: boolean;
};

export type StoreInboundResult =
  | { status: "duplicate" }
  | { status: "edited"; conversationId: number; messageId: number }
  | { status: "ignored_edit" }
  | { status: "stored"; conversationId: number; messageId: number; envelopeId: number; answer: boolean };

/**
 * Stores one inbound platform message in a single transaction: the update id
 * (a retried delivery is a no-op), the conversation, the message (unique per
 * conversation and platform id), its reply target and thread, and the inbound
 * envelope to the agent. The webhook answers 200 only after this commits.
 */
export async function storeInbound(db: Db, msg: InboundMessage, options: StoreInboundOptions): Promise<StoreInboundResult> {
  try {
    return await db.$transaction((tx) => store(tx, msg, options));
  } catch (error) {
    // A concurrent delivery of the same update committed first.
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}

async function store(tx: Tx, msg: InboundMessage, options: StoreInboundOptions): Promise<StoreInboundResult> {
  // A repeated update id violates the unique key: the whole transaction rolls back
  // and storeInbound answers "duplicate" (no SELECT first: one statement less on the hot path).
  await tx.inboundUpdate.create({ data: { channel: msg.channel, updateId: msg.updateId } });

  const conversation = await tx.conversation.upsert({
    where: { channel_platformChatId: { channel: msg.channel, platformChatId: msg.chat.id } },
    create: { channel: msg.channel, platformChatId: msg.chat.id, type: msg.chat.type, title: msg.chat.title, lastMessageAt: msg.message.sentAt },
    update: msg.kind === "new" ? { title: msg.chat.title, lastMessageAt: msg.message.sentAt, generation: { increment: 1 } } : {},
  });
  const key = { conversationId_platformMessageId: { conversationId: conversation.id, platformMessageId: msg.message.id } };

  if (msg.kind === "edit") {
    const original = await tx.message.findUnique({ where: key });
    if (!original) return { status: "ignored_edit" };
    if (original.text !== msg.message.text) {
      await tx.messageRevision.create({ data: { messageId: original.id, text: original.text } });
      await tx.message.update({ where: { id: original.id }, data: { text: msg.message.text, editedAt: new Date() } });
    }
    return { status: "edited", conversationId: conversation.id, messageId: original.id };
  }

  const target = msg.replyTo?.id
    ? await tx.message.findUnique({
        where: { conversationId_platformMessageId: { conversationId: conversation.id, platformMessageId: msg.replyTo.id } },
        select: { id: true, threadId: true, senderKind: true, forkId: true },
      })
    : null;
  // An unknown or invalid platform id is simply "not found": the platform's copy of the text stays.
  if (msg.replyTo?.id && !target) log.debug("ingest.reply_target_not_found", { channel: msg.channel, replyTo: msg.replyTo.id });
  const threadId = target ? await joinThread(tx, conversation.id, target, msg.message.sentAt) : null;
  const { forkId, forkConflict } = await routeToFork(tx, conversation, target?.forkId ?? null, msg, options.forkReplyTtlMs);

  // The same message under a new update id hits the (conversation, platform id) key: duplicate.
  const repliesToBot = Boolean(msg.replyTo?.fromSelf || target?.senderKind === "agent");
  const wanted = conversation.agentEnabled && options.answers({ repliesToBot });
  // A fork conflict is answered with a notice even without a model.
  const answer = wanted && (options.modelConfigured || forkConflict);
  const message = await tx.message.create({
    data: {
      conversationId: conversation.id,
      direction: "inbound",
      senderKind: "user",
      senderPlatformId: msg.sender.id,
      senderName: msg.sender.name,
      senderUsername: msg.sender.username,
      senderIsBot: msg.sender.isBot,
      text: msg.message.text,
      platformMessageId: msg.message.id,
      platformTopicId: msg.message.topicId,
      replyToMessageId: target?.id,
      replyToPlatformId: msg.replyTo?.id,
      replyToText: msg.replyTo?.text,
      replyToSenderName: msg.replyTo?.senderName,
      replyToSenderIsBot: msg.replyTo ? msg.replyTo.fromSelf : null,
      quoteText: msg.quote,
      threadId,
      forkId,
      mentionsBot: msg.addressesBot,
      sentAt: msg.message.sentAt,
    },
  });
  const now = new Date();
  const envelope = await tx.envelope.create({
    data: {
      from: channelAddress(msg.channel, msg.chat.id),
      to: options.agent,
      status: answer ? "pending" : "done",
      text: msg.message.text,
      conversationId: conversation.id,
      messageId: message.id,
      forkId,
      metadata: {
        platformMessageId: msg.message.id,
        updateId: msg.updateId,
        ...(forkConflict ? { forkConflict: true } : {}),
        ...(msg.platform ? { platform: msg.platform } : {}),
        ...(answer
          ? {}
          : { skipped: !conversation.agentEnabled ? "agent paused in this conversation" : wanted ? "no model configured" : "not addressed to the bot" }),
      },
      doneAt: answer ? null : now,
    },
  });
  return { status: "stored", conversationId: conversation.id, messageId: message.id, envelopeId: envelope.id, answer };
}

/**
 * Which session a new message belongs to. A reply to a message a background fork
 * posted (fork younger than the TTL) starts an interactive fork resuming it, unless
 * another interactive fork is already active: then the message stays there and
 * is flagged, so the user and the operator are told instead of nesting forks.
 * Otherwise the conversation's active fork (or the main session) gets it.
 */
async function routeToFork(
  tx: Tx,
  conversation: { id: number; activeForkId: number | null },
  targetForkId: number | null,
  msg: InboundMessage,
  ttlMs: number,
): Promise<{ forkId: number | null; forkConflict: boolean }> {
  let forkId = conversation.activeForkId;
  let forkConflict = false;
  if (targetForkId !== null) {
    const fork = await tx.fork.findUnique({ where: { id: targetForkId } });
    const resumable = fork?.kind === "background" && fork.status !== "expired" && fork.startedAt.getTime() > msg.message.sentAt.getTime() - ttlMs;
    if (fork && resumable) {
      if (conversation.activeForkId === null) {
        const interactive = await tx.fork.create({
          data: { conversationId: conversation.id, kind: "interactive", status: "active", parentForkId: fork.id, startedBy: `reply from ${msg.sender.name}`, title: fork.title, baseMessageId: fork.baseMessageId },
        });
        await tx.conversation.update({ where: { id: conversation.id }, data: { activeForkId: interactive.id } });
        forkId = interactive.id;
      } else {
        const active = await tx.fork.findUnique({ where: { id: conversation.activeForkId }, select: { parentForkId: true } });
        forkConflict = active?.parentForkId !== fork.id && conversation.activeForkId !== fork.id;
      }
    }
  }
  if (forkId !== null) await tx.fork.update({ where: { id: forkId }, data: { lastActivityAt: new Date(), idleWarnings: 0 } });
  return { forkId, forkConflict };
}

/**
 * Puts a reply into its target's thread, creating the thread (rooted at the
 * target) on the first reply, so reading a reply tree is one indexed query.
 */
export async function joinThread(tx: Tx, conversationId: number, target: { id: number; threadId: number | null }, at: Date) {
  if (target.threadId) {
    await tx.thread.update({ where: { id: target.threadId }, data: { messageCount: { increment: 1 }, lastMessageAt: at } });
    return target.threadId;
  }
  const thread = await tx.thread.create({ data: { conversationId, rootMessageId: target.id, messageCount: 2, lastMessageAt: at } });
  await tx.message.update({ where: { id: target.id }, data: { threadId: thread.id } });
  return thread.id;
}
