import type { InboundEvent, InboundMessage } from "../channels/types";
import { chatFamily } from "../channels/topic-key";
import type { Database } from "../db/database";
import { isUniqueViolation } from "../db/errors";
import {
  clearMembership,
  findByPlatformId,
  findRoutingFork,
  insertDeletedPlaceholder,
  insertInboundMessageAndEnvelope,
  insertInboundUpdate,
  insertAttachments,
  insertRevision,
  joinThread,
  markMessageDeleted,
  openInteractiveFork,
  setMembership,
  storable,
  touchFork,
  updateMessageText,
  type IngestConversation,
  recordUpdateAndConversation,
  storeOrdinaryMessage,
  upsertConversation,
} from "../db/ingest";
import type { SqlRunner } from "../db/sql";
import { attachmentRows, DEFAULT_MEDIA_MAX_BYTES } from "../media/intake";
import { endEnvelope } from "./end-envelope";
import { agentAddress, channelAddress } from "../envelope/address";
import type { EnvelopeMetadata } from "../db/envelope-metadata";
import { publish } from "../events/bus";
import { log } from "../log";
import type { Settings } from "../settings/schema";
import { settingsInForce, type SettingsInForce } from "../settings/reader";
import { decideResume, interactiveChildOf, replyResumes } from "./fork-routing";
import { reopenByUser } from "./conversation-status";
import { remindWaiting, requestHandoff } from "./handoff";
import { handoffCommandIn } from "./handoff-rules";
import type { TurnDeps } from "./agent-turn";
import { inboundOutcome, shouldAnswer } from "./should-answer";

export type StoreInboundResult =
  | { status: "duplicate" }
  | { status: "edited"; conversationId: number; messageId: number }
  | { status: "stored"; conversationId: number; messageId: number; envelopeId: number; answer: boolean };

export type StoreEventResult =
  | { status: "duplicate" }
  | { status: "membership"; membership: string | null }
  | { status: "deleted"; found: boolean }
  | { status: "topic" };

export type IngestOptions = {
  modelConfigured: boolean;
  /** What the handoff command needs to tell the user (send) and report a fork; without it the command is an ordinary message. */
  deps?: TurnDeps;
  /** MEDIA_MAX_BYTES: an attachment declared larger is recorded too_large and never fetched (default 20 MB). */
  mediaMaxBytes?: number;
};

/**
 * Stores one inbound platform message in a single transaction and decides
 * whether the agent answers it: the update id (a retried delivery is a no-op),
 * the conversation, the message (unique per conversation and platform id), its
 * reply target and thread, its fork, and the inbound envelope to the agent. The
 * webhook answers 200 only after this commits.
 */
export async function ingestInbound(
  db: Database,
  message: InboundMessage,
  options: IngestOptions = { modelConfigured: true },
): Promise<StoreInboundResult> {
  // The message's one read of the settings: the bot's own overrides (answer rules, handoff
  // command, agent name) over the global ones, passed down to every step from here.
  const inForce = await settingsInForce(db, { adapter: message.channel });
  const { settings } = inForce;
  const clean = storable(message);
  // The handoff command (a person asking for a person) is decided here, without the model:
  // stored like any message but never answered by the agent, then the handoff.
  const command = options.deps
    ? handoffCommandIn(
        {
          kind: message.kind,
          text: message.message.text,
          forwarded: Boolean(message.message.forwardedFrom),
          // A command is a text message: "/human" as a photo's caption is the photo's caption.
          caption: Boolean(message.message.attachments?.length),
          sender: message.sender,
          addressesBot: message.addressesBot,
        },
        settings.handoffCommand,
      )
    : null;
  let stored: StoreInboundResult | undefined;
  try {
    if (db.dialect === "postgresql" && command === null && isOrdinary(clean)) stored = await storeOrdinary(db, clean, settings, options);
    stored ??= await db.transaction((sql) => storeInbound(sql, clean, settings, { ...options, handoffCommand: command !== null }));
  } catch (error) {
    // A concurrent delivery of the same update committed first.
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
  if (command !== null && options.deps && stored.status === "stored") await handoffByCommand(options.deps, stored, command, inForce);
  return stored;
}

/**
 * The user's handoff command: the conversation goes to a human at once. Asked
 * again while still waiting: reminded once that a person is coming. A failure is
 * logged, never the webhook's 500: the message is stored and an operator can act.
 */
async function handoffByCommand(
  deps: TurnDeps,
  stored: Extract<StoreInboundResult, { status: "stored" }>,
  reason: string,
  // The message's settings: the bot's own agent, to which its envelope went (not the global agent name).
  inForce: SettingsInForce,
) {
  // The inbound envelope says why the agent did not answer it.
  await endEnvelope(
    deps.db,
    stored.envelopeId,
    {
      status: "done",
      metadata: { skipped: "handoff command", handoff: { action: "request", via: "command" } },
    },
    stored.conversationId,
  );
  const message = await deps.db.prisma.message.findUnique({
    where: { id: stored.messageId },
    select: { id: true, threadId: true, platformMessageId: true, platformTopicId: true },
  });
  const replyTo = { envelopeId: stored.envelopeId, message };
  try {
    const by = agentAddress(inForce.settings.agentName);
    await requestHandoff(deps, { conversationId: stored.conversationId, reason, by, replyTo, settings: inForce });
  } catch (error) {
    if ((error as { code?: string }).code === "rate_limited") {
      // Recorded where operators look (the user's envelope), never a message or a notice more.
      log.warn("handoff.user_limit", { conversationId: stored.conversationId });
      await endEnvelope(
        deps.db,
        stored.envelopeId,
        {
          status: "done",
          metadata: { handoff: { action: "request", via: "command", refused: (error as Error).message } },
        },
        stored.conversationId,
      );
      return;
    }
    if ((error as { code?: string }).code === "conflict") {
      await remindWaiting(deps, stored.conversationId, replyTo, inForce.settings).catch((e) =>
        log.error("handoff.reminder_failed", { conversationId: stored.conversationId, error: (e as Error).message }),
      );
      return;
    }
    log.error("handoff.command_failed", { conversationId: stored.conversationId, error: (error as Error).message });
  }
}

/** Any parsed delivery: messages go through ingestInbound, the rest are recorded once. */
export async function ingestEvent(
  db: Database,
  event: Exclude<InboundEvent, { type: "ignored" }>,
  options: IngestOptions = { modelConfigured: true },
): Promise<StoreInboundResult | StoreEventResult> {
  if (event.type === "message") {
    const stored = await ingestInbound(db, event.message, options);
    if (stored.status !== "duplicate") publish(db, { type: "message", conversationId: stored.conversationId, messageId: stored.messageId });
    return stored;
  }
  const result = await storeEvent(db, event);
  // Membership, an unsent message, a topic's name: what the pages show changed.
  if (result.status !== "duplicate") publish(db, { type: "conversation" });
  if (event.type === "membership" && result.status === "membership") {
    log.info("ingest.membership_changed", { channel: event.channel, chatId: event.chat.id, membership: event.membership });
  }
  return result;
}

/**
 * A message whose storing needs no decision read from the database but its
 * conversation's state: new, in a chat without topics, replying to no message we
 * would look up, without attachments. On PostgreSQL it may go in one statement.
 */
function isOrdinary(msg: InboundMessage): boolean {
  return msg.kind === "new" && !msg.chat.topic && !msg.replyTo?.id && !msg.message.attachments?.length;
}

/**
 * An ordinary message in one statement (lib/db/ingest.ts `storeOrdinaryMessage`),
 * decided as storeInbound decides it for an open conversation, agent on, no fork.
 * Undefined when the conversation is anything else: nothing was written.
 */
async function storeOrdinary(
  db: Database,
  msg: InboundMessage,
  settings: Settings,
  options: IngestOptions,
): Promise<StoreInboundResult | undefined> {
  const { outcome, metadata } = inboundDecision(
    msg,
    settings,
    { ...options, handoffCommand: false },
    { agentEnabled: true, repliesToBot: Boolean(msg.replyTo?.fromSelf), forkConflict: false },
  );
  const stored = await storeOrdinaryMessage(db.write, { channel: msg.channel, updateId: msg.updateId }, msg.chat, msg, {
    from: channelAddress(msg.channel, msg.chat.id),
    to: agentAddress(settings.agentName),
    status: outcome.answer ? "pending" : "done",
    text: msg.message.text,
    metadata,
  });
  return stored && { status: "stored", ...stored, answer: outcome.answer };
}

async function storeInbound(
  sql: SqlRunner,
  msg: InboundMessage,
  settings: Settings,
  options: IngestOptions & { handoffCommand: boolean },
): Promise<StoreInboundResult> {
  const now = new Date();
  // A repeated update id rolls the whole transaction back: ingestInbound answers "duplicate".
  let conversation = await recordUpdateAndConversation(
    sql,
    { channel: msg.channel, updateId: msg.updateId, receivedAt: now },
    msg.chat,
    msg.message.sentAt,
    msg.kind === "new",
  );
  // A message sent after the bot was blocked or removed proves it is back (a blocked
  // bot receives nothing from that user; a removed one nothing from that group), so
  // the chat and its topics may be sent to again. An older message arriving late changes nothing.
  if (conversation.membership && msg.kind === "new")
    await clearMembership(sql, msg.channel, chatFamily(msg.chat.topic?.chatId ?? msg.chat.id), msg.message.sentAt);
  // The user wrote: a resolved conversation reopens, a snoozed one wakes (a bot's message is not the user's activity).
  if (conversation.status !== "open" && msg.kind === "new" && !msg.sender.isBot)
    await reopenByUser(sql, conversation.id, conversation.status, channelAddress(msg.channel, msg.chat.id), now);

  // Platform time orders edits: Telegram delivers concurrently, so an older edit can arrive last.
  const editedAt = msg.kind === "edit" ? (msg.message.editedAt ?? now) : null;
  if (msg.kind === "edit") {
    const original = await findByPlatformId(sql, conversation.id, msg.message.id);
    if (original) {
      if (original.editedAt && editedAt! < original.editedAt) {
        // Already superseded: kept as an earlier text, the current one stays.
        await insertRevision(sql, original.id, msg.message.text, original.editedAt);
      } else if (original.text !== msg.message.text) {
        await insertRevision(sql, original.id, original.text, editedAt!);
        await updateMessageText(sql, original.id, msg.message.text, editedAt!);
      }
      return { status: "edited", conversationId: conversation.id, messageId: original.id };
    }
    // A message we never saw: the edit overtook it, or it was edited to address the bot
    // (privacy mode delivers only that). The edit carries the whole message: store it as
    // one, answered as it would be; the late original is then a duplicate.
    conversation = await upsertConversation(sql, msg.channel, msg.chat, msg.message.sentAt, true);
  }
  const conversationId = conversation.id;

  const target = msg.replyTo?.id ? await findByPlatformId(sql, conversationId, msg.replyTo.id) : undefined;
  // An unknown or invalid platform id is simply "not found": the platform's copy of the text stays.
  if (msg.replyTo?.id && !target) log.debug("ingest.reply_target_not_found", { channel: msg.channel, replyTo: msg.replyTo.id });
  const threadId = target ? await joinThread(sql, conversationId, target, msg.message.sentAt) : null;
  const { forkId, forkConflict } = await routeToFork(
    sql,
    conversation,
    target?.forkId ?? null,
    msg,
    settings.forkReplyTtlDays * 86_400_000,
  );

  const { outcome, metadata } = inboundDecision(msg, settings, options, {
    agentEnabled: Boolean(conversation.agentEnabled),
    repliesToBot: Boolean(msg.replyTo?.fromSelf || target?.senderKind === "agent"),
    forkConflict,
  });
  // The same message under a new update id hits the (conversation, platform id) key: duplicate.
  const { messageId, envelopeId } = await insertInboundMessageAndEnvelope(
    sql,
    { conversationId, message: msg, replyToMessageId: target?.id ?? null, threadId, forkId, editedAt },
    {
      from: channelAddress(msg.channel, msg.chat.id),
      to: agentAddress(settings.agentName),
      status: outcome.answer ? "pending" : "done",
      text: msg.message.text,
      conversationId,
      forkId,
      metadata,
    },
    now,
  );
  const attachments = attachmentRows(msg.message.attachments ?? [], options.mediaMaxBytes ?? DEFAULT_MEDIA_MAX_BYTES);
  if (attachments.length) await insertAttachments(sql, messageId, attachments, now);
  return { status: "stored", conversationId, messageId, envelopeId, answer: outcome.answer };
}

/** Whether the agent answers a stored message, and what its envelope records about it. */
function inboundDecision(
  msg: InboundMessage,
  settings: Settings,
  options: IngestOptions & { handoffCommand: boolean },
  found: { agentEnabled: boolean; repliesToBot: boolean; forkConflict: boolean },
) {
  const addressed = shouldAnswer(
    {
      chatType: msg.chat.type,
      senderIsBot: msg.sender.isBot,
      senderRole: msg.sender.role,
      addressesBot: msg.addressesBot,
      repliesToBot: found.repliesToBot,
    },
    settings.groupAnswerMode,
    settings.answerChatSenders,
  );
  const outcome = inboundOutcome({
    agentEnabled: found.agentEnabled,
    addressed,
    modelConfigured: options.modelConfigured,
    forkConflict: found.forkConflict,
    handoffCommand: options.handoffCommand,
    standby: msg.platform?.standby === true,
  });
  const metadata = {
    platformMessageId: msg.message.id,
    updateId: msg.updateId,
    ...(found.forkConflict ? { forkConflict: true } : {}),
    // Part of an album: its turn waits for the album's last part (lib/pipeline/turn-plan.ts).
    ...(msg.message.mediaGroupId ? { mediaGroup: true } : {}),
    ...(msg.platform ? { platform: msg.platform } : {}),
    ...(outcome.answer ? {} : { skipped: outcome.skipped }),
  } satisfies EnvelopeMetadata;
  return { outcome, metadata };
}

/**
 * Which session a new message belongs to (the rule: fork-routing.ts). A reply to a
 * message a background fork posted, within the TTL, opens an interactive child of
 * it; if another interactive fork is active the message stays there, flagged, so
 * the user and the operator are told instead of nesting forks. Otherwise the
 * conversation's active fork (or the main session) gets it.
 */
async function routeToFork(
  sql: SqlRunner,
  conversation: IngestConversation,
  targetForkId: number | null,
  msg: InboundMessage,
  ttlMs: number,
): Promise<{ forkId: number | null; forkConflict: boolean }> {
  const now = new Date();
  const forkId = conversation.activeForkId;
  let forkConflict = false;
  const fork = targetForkId !== null ? await findRoutingFork(sql, targetForkId) : undefined;
  if (fork && replyResumes(fork, msg.message.sentAt, ttlMs)) {
    // Read only when needed: the hot path (no reply to a fork) never pays for it.
    const active = forkId === null ? null : ((await findRoutingFork(sql, forkId)) ?? { id: forkId, parentForkId: null });
    const decision = decideResume(fork, active);
    if (decision.action === "open") {
      const opened = await openInteractiveFork(
        sql,
        interactiveChildOf({ ...fork, conversationId: conversation.id }, `reply from ${msg.sender.name}`),
        now,
      );
      return { forkId: opened, forkConflict };
    }
    forkConflict = decision.action === "conflict";
  }
  if (forkId !== null) await touchFork(sql, forkId, now);
  return { forkId, forkConflict };
}

/**
 * Stores what a delivery that is not a message means, once per update id: the
 * bot's membership of a chat (and its topics), a message taken back (kept, marked
 * deleted), a forum topic's name.
 */
async function storeEvent(db: Database, event: Exclude<InboundEvent, { type: "message" | "ignored" }>): Promise<StoreEventResult> {
  // An unsend racing its own message (LINE delivers both at once): the message was not
  // committed when looked for, so the placeholder hit its key. Once more, it is found;
  // a repeated update id fails again and is the duplicate.
  for (let attempt = 1; ; attempt++) {
    try {
      return await storeEventOnce(db, event);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (event.type !== "deleted" || attempt === 2) return { status: "duplicate" };
    }
  }
}

async function storeEventOnce(db: Database, event: Exclude<InboundEvent, { type: "message" | "ignored" }>): Promise<StoreEventResult> {
  const clean = storable(event);
  return db.transaction(async (sql) => {
    await insertInboundUpdate(sql, clean.channel, clean.updateId, new Date());
    if (clean.type === "membership") {
      await upsertConversation(sql, clean.channel, clean.chat, clean.at, false);
      // A later change wins even when Telegram delivers the two out of order.
      await setMembership(sql, clean.channel, chatFamily(clean.chat.id), clean.membership, clean.at);
      return { status: "membership", membership: clean.membership };
    }
    if (clean.type === "deleted") {
      if ((await markMessageDeleted(sql, clean.channel, clean.chat.id, clean.messageId, clean.at)) > 0)
        return { status: "deleted", found: true };
      // Unknown: it may still come (a redelivery after our failure overtaken by the
      // unsend). A taken-back placeholder holds its id, so the late message is a
      // duplicate and its text is neither stored nor answered.
      const conversation = await upsertConversation(sql, clean.channel, clean.chat, clean.at, false);
      await insertDeletedPlaceholder(sql, conversation.id, clean.messageId, clean.at);
      return { status: "deleted", found: false };
    }
    await upsertConversation(sql, clean.channel, clean.chat, new Date(), false, true);
    return { status: "topic" };
  });
}
