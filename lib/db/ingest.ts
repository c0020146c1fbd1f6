import type { InboundEvent, InboundMessage } from "../channels/types";
import { channelAddress } from "../envelope/address";
import type { EnvelopeMetadata } from "../envelope/metadata";
import type { Database } from "./database";
import { log } from "../log";
import { isUniqueViolation } from "./errors";
import { type SqlRunner } from "./sql";

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
  | { status: "stored"; conversationId: number; messageId: number; envelopeId: number; answer: boolean };

/**
 * Stores one inbound platform message in a single transaction: the update id
 * (a retried delivery is a no-op), the conversation, the message (unique per
 * conversation and platform id), its reply target and thread, and the inbound
 * envelope to the agent. The webhook answers 200 only after this commits.
 */
export async function storeInbound(db: Database, msg: InboundMessage, options: StoreInboundOptions): Promise<StoreInboundResult> {
  try {
    const clean = storable(msg);
    return await db.transaction((sql) => store(sql, clean, options));
  } catch (error) {
    // A concurrent delivery of the same update committed first.
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}

/**
 * Every string made storable on both databases: PostgreSQL refuses U+0000 in text
 * and lone surrogates in JSON (`\ud800` in jsonb), SQLite stores both and its
 * readers then choke. Neither means anything in a chat: U+0000 is dropped, a lone
 * surrogate becomes U+FFFD (what UTF-8 encoding makes of it anyway).
 */
export function storable<T>(value: T): T {
  if (typeof value === "string") return value.replaceAll("\u0000", "").toWellFormed() as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, storable(v)])) as T;
  }
  return value;
}

type ConversationRow = { id: number; agentEnabled: boolean | number; activeForkId: number | null; membership: string | null };

/**
 * The conversation a chat (or forum topic) maps to, created on first sight. A topic
 * also makes sure its chat's own conversation exists, which the dashboard groups
 * it under. `touch` bumps activity and the history generation (a new message).
 */
async function upsertConversation(
  sql: SqlRunner,
  channel: string,
  chat: InboundMessage["chat"],
  at: Date,
  touch: boolean,
  /** A topic created or renamed: its name wins. Otherwise a name only fills a gap (replies carry the creation-time name). */
  renamed = false,
): Promise<ConversationRow> {
  const now = new Date();
  let parentId: number | null = null;
  if (chat.topic) {
    parentId = (await sql.one<{ id: number }>(
      `INSERT INTO "Conversation" ("channel", "platformChatId", "type", "title", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT ("channel", "platformChatId") DO UPDATE SET "title" = COALESCE(excluded."title", "Conversation"."title")
       RETURNING "id"`,
      channel, chat.topic.chatId, chat.type, chat.title, now, now,
    ))!.id;
  }
  return (await sql.one<ConversationRow>(
    `INSERT INTO "Conversation" ("channel", "platformChatId", "type", "title", "topicId", "topicName", "parentConversationId", "lastMessageAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("channel", "platformChatId") DO UPDATE SET
       "title" = CASE WHEN ? THEN COALESCE(excluded."title", "Conversation"."title") ELSE "Conversation"."title" END,
       "topicName" = CASE WHEN ? THEN COALESCE(excluded."topicName", "Conversation"."topicName") ELSE COALESCE("Conversation"."topicName", excluded."topicName") END,
       "lastMessageAt" = CASE WHEN ? THEN excluded."lastMessageAt" ELSE "Conversation"."lastMessageAt" END,
       "generation" = "Conversation"."generation" + CASE WHEN ? THEN 1 ELSE 0 END,
       "updatedAt" = CASE WHEN ? THEN excluded."updatedAt" ELSE "Conversation"."updatedAt" END
     RETURNING "id", "agentEnabled", "activeForkId", "membership"`,
    channel, chat.id, chat.type, chat.title, chat.topic?.id ?? null, chat.topic?.name ?? null, parentId, touch ? at : null, now, now,
    touch, renamed, touch, touch, touch,
  ))!;
}

/**
 * A message sent after the bot was blocked or removed proves it is back (a blocked
 * bot receives nothing from that user; a removed one nothing from that group), so
 * the chat and its topics may be sent to again. An older message arriving late
 * changes nothing.
 */
async function clearMembership(sql: SqlRunner, channel: string, chat: InboundMessage["chat"], at: Date) {
  const chatId = chat.topic?.chatId ?? chat.id;
  await sql.run(
    `UPDATE "Conversation" SET "membership" = NULL, "membershipChangedAt" = ?
     WHERE "channel" = ? AND ("platformChatId" = ? OR "platformChatId" LIKE ?) AND "membership" IS NOT NULL AND "membershipChangedAt" < ?`,
    at, channel, chatId, `${chatId}:topic:%`, at,
  );
}

export type StoreEventResult = { status: "duplicate" } | { status: "membership"; membership: string | null } | { status: "deleted"; found: boolean } | { status: "topic" };

/**
 * Stores what a delivery that is not a message means, once per update id: the
 * bot's membership of a chat (and its topics), a message taken back (kept, marked
 * deleted), a forum topic's name.
 */
export async function storeEvent(db: Database, event: Exclude<InboundEvent, { type: "message" | "ignored" }>): Promise<StoreEventResult> {
  const clean = storable(event);
  try {
    return await db.transaction(async (sql) => {
      await sql.run(`INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES (?, ?, ?)`, clean.channel, clean.updateId, new Date());
      if (clean.type === "membership") {
        await upsertConversation(sql, clean.channel, clean.chat, clean.at, false);
        // A later change wins even when Telegram delivers the two out of order.
        await sql.run(
          `UPDATE "Conversation" SET "membership" = ?, "membershipChangedAt" = ?, "updatedAt" = ?
           WHERE "channel" = ? AND ("platformChatId" = ? OR "platformChatId" LIKE ?) AND ("membershipChangedAt" IS NULL OR "membershipChangedAt" <= ?)`,
          clean.membership, clean.at, new Date(), clean.channel, clean.chat.id, `${clean.chat.id}:topic:%`, clean.at,
        );
        return { status: "membership", membership: clean.membership };
      }
      if (clean.type === "deleted") {
        const changed = await sql.run(
          `UPDATE "Message" SET "deletedAt" = ? WHERE "platformMessageId" = ? AND "conversationId" IN
             (SELECT "id" FROM "Conversation" WHERE "channel" = ? AND "platformChatId" = ?)`,
          clean.at, clean.messageId, clean.channel, clean.chat.id,
        );
        if (Number(changed) > 0) return { status: "deleted", found: true };
        // Unknown: it may still come (a redelivery after our failure overtaken by the
        // unsend). A taken-back placeholder holds its id, so the late message is a
        // duplicate and its text is neither stored nor answered.
        const conversation = await upsertConversation(sql, clean.channel, clean.chat, clean.at, false);
        await sql.run(
          `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderIsBot", "text", "platformMessageId", "mentionsBot", "sentAt", "deletedAt", "createdAt")
           VALUES (?, 'inbound', 'user', ?, '', ?, ?, ?, ?, ?)`,
          conversation.id, false, clean.messageId, false, clean.at, clean.at, new Date(),
        );
        return { status: "deleted", found: false };
      }
      await upsertConversation(sql, clean.channel, clean.chat, new Date(), false, true);
      return { status: "topic" };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { status: "duplicate" };
    throw error;
  }
}
type TargetRow = { id: number; threadId: number | null; senderKind: string; forkId: number | null };

async function store(sql: SqlRunner, msg: InboundMessage, options: StoreInboundOptions): Promise<StoreInboundResult> {
  const now = new Date();
  // A repeated update id violates the unique key: the whole transaction rolls back
  // and storeInbound answers "duplicate" (no SELECT first: one statement less on the hot path).
  await sql.run(`INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES (?, ?, ?)`, msg.channel, msg.updateId, now);

  let conversation = await upsertConversation(sql, msg.channel, msg.chat, msg.message.sentAt, msg.kind === "new");
  if (conversation.membership && msg.kind === "new") await clearMembership(sql, msg.channel, msg.chat, msg.message.sentAt);
  let conversationId = conversation.id;

  // Platform time orders edits: Telegram delivers concurrently, so an older edit can arrive last.
  const editedAt = msg.kind === "edit" ? (msg.message.editedAt ?? now) : null;
  if (msg.kind === "edit") {
    const original = await sql.one<{ id: number; text: string; editedAt: string | Date | null }>(
      `SELECT "id", "text", "editedAt" FROM "Message" WHERE "conversationId" = ? AND "platformMessageId" = ?`, conversationId, msg.message.id,
    );
    if (original) {
      const current = original.editedAt === null ? null : new Date(original.editedAt);
      if (current && editedAt! < current) {
        // Already superseded: kept as an earlier text, the current one stays.
        await sql.run(`INSERT INTO "MessageRevision" ("messageId", "text", "replacedAt") VALUES (?, ?, ?)`, original.id, msg.message.text, current);
      } else if (original.text !== msg.message.text) {
        await sql.run(`INSERT INTO "MessageRevision" ("messageId", "text", "replacedAt") VALUES (?, ?, ?)`, original.id, original.text, editedAt);
        await sql.run(`UPDATE "Message" SET "text" = ?, "editedAt" = ? WHERE "id" = ?`, msg.message.text, editedAt, original.id);
      }
      return { status: "edited", conversationId, messageId: original.id };
    }
    // A message we never saw: the edit overtook it, or it was edited to address the bot
    // (privacy mode delivers only that). The edit carries the whole message: store it as
    // one, answered as it would be; the late original is then a duplicate.
    conversation = await upsertConversation(sql, msg.channel, msg.chat, msg.message.sentAt, true);
    conversationId = conversation.id;
  }

  const target = msg.replyTo?.id
    ? await sql.one<TargetRow>(
        `SELECT "id", "threadId", "senderKind", "forkId" FROM "Message" WHERE "conversationId" = ? AND "platformMessageId" = ?`, conversationId, msg.replyTo.id,
      )
    : undefined;
  // An unknown or invalid platform id is simply "not found": the platform's copy of the text stays.
  if (msg.replyTo?.id && !target) log.debug("ingest.reply_target_not_found", { channel: msg.channel, replyTo: msg.replyTo.id });
  const threadId = target ? await joinThread(sql, conversationId, target, msg.message.sentAt) : null;
  const { forkId, forkConflict } = await routeToFork(sql, conversation, target?.forkId ?? null, msg, options.forkReplyTtlMs);

  // The same message under a new update id hits the (conversation, platform id) key: duplicate.
  const agentEnabled = Boolean(conversation.agentEnabled);
  const repliesToBot = Boolean(msg.replyTo?.fromSelf || target?.senderKind === "agent");
  const wanted = agentEnabled && options.answers({ repliesToBot });
  // A fork conflict is answered with a notice even without a model.
  const answer = wanted && (options.modelConfigured || forkConflict);
  const message = (await sql.one<{ id: number }>(
    `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderPlatformId", "senderName", "senderUsername", "senderIsBot",
       "senderRole", "text", "forwardedFrom", "viaBot", "platformMessageId", "platformTopicId", "replyToMessageId", "replyToPlatformId",
       "replyToText", "replyToSenderName", "replyToSenderIsBot", "replyToChatTitle", "quoteText", "threadId", "forkId", "mentionsBot", "sentAt", "editedAt", "createdAt")
     VALUES (?, 'inbound', 'user', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
    conversationId, msg.sender.id, msg.sender.name, msg.sender.username, msg.sender.isBot,
    msg.sender.role, msg.message.text, msg.message.forwardedFrom, msg.message.viaBot, msg.message.id, msg.message.topicId, target?.id, msg.replyTo?.id,
    msg.replyTo?.text, msg.replyTo?.senderName, msg.replyTo ? msg.replyTo.fromSelf : null, msg.replyTo?.chatTitle, msg.quote, threadId, forkId,
    msg.addressesBot, msg.message.sentAt, editedAt, now,
  ))!;
  const metadata = {
    platformMessageId: msg.message.id,
    updateId: msg.updateId,
    ...(forkConflict ? { forkConflict: true } : {}),
    ...(msg.platform ? { platform: msg.platform } : {}),
    ...(answer ? {} : { skipped: !agentEnabled ? "agent paused in this conversation" : wanted ? "no model configured" : "not addressed to the bot" }),
  } satisfies EnvelopeMetadata;
  const envelope = (await sql.one<{ id: number }>(
    `INSERT INTO "Envelope" ("from", "to", "status", "text", "conversationId", "messageId", "forkId", "metadata", "doneAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"`,
    channelAddress(msg.channel, msg.chat.id), options.agent, answer ? "pending" : "done", msg.message.text, conversationId, message.id, forkId,
    metadata, answer ? null : now, now, now,
  ))!;
  return { status: "stored", conversationId, messageId: message.id, envelopeId: envelope.id, answer };
}

/**
 * Which session a new message belongs to. A reply to a message a background fork
 * posted (fork younger than the TTL) starts an interactive fork resuming it, unless
 * another interactive fork is already active: then the message stays there and
 * is flagged, so the user and the operator are told instead of nesting forks.
 * Otherwise the conversation's active fork (or the main session) gets it.
 */
async function routeToFork(
  sql: SqlRunner,
  conversation: { id: number; activeForkId: number | null },
  targetForkId: number | null,
  msg: InboundMessage,
  ttlMs: number,
): Promise<{ forkId: number | null; forkConflict: boolean }> {
  let forkId = conversation.activeForkId;
  let forkConflict = false;
  const now = new Date();
  if (targetForkId !== null) {
    const fork = await sql.one<{ id: number; kind: string; status: string; startedAt: string | Date; title: string | null; baseMessageId: number | null }>(
      `SELECT "id", "kind", "status", "startedAt", "title", "baseMessageId" FROM "Fork" WHERE "id" = ?`, targetForkId,
    );
    const resumable = fork?.kind === "background" && fork.status !== "expired" && new Date(fork.startedAt).getTime() > msg.message.sentAt.getTime() - ttlMs;
    if (fork && resumable) {
      if (conversation.activeForkId === null) {
        const interactive = (await sql.one<{ id: number }>(
          `INSERT INTO "Fork" ("conversationId", "kind", "status", "parentForkId", "startedBy", "title", "baseMessageId", "startedAt", "lastActivityAt")
           VALUES (?, 'interactive', 'active', ?, ?, ?, ?, ?, ?) RETURNING "id"`,
          conversation.id, fork.id, `reply from ${msg.sender.name}`, fork.title, fork.baseMessageId, now, now,
        ))!;
        await sql.run(`UPDATE "Conversation" SET "activeForkId" = ?, "updatedAt" = ? WHERE "id" = ?`, interactive.id, now, conversation.id);
        return { forkId: interactive.id, forkConflict };
      }
      const active = await sql.one<{ parentForkId: number | null }>(`SELECT "parentForkId" FROM "Fork" WHERE "id" = ?`, conversation.activeForkId);
      forkConflict = active?.parentForkId !== fork.id && conversation.activeForkId !== fork.id;
    }
  }
  if (forkId !== null) await sql.run(`UPDATE "Fork" SET "lastActivityAt" = ?, "idleWarnings" = 0 WHERE "id" = ?`, now, forkId);
  return { forkId, forkConflict };
}

/**
 * Puts a reply into its target's thread, creating the thread (rooted at the
 * target) on the first reply, so reading a reply tree is one indexed query.
 */
export async function joinThread(sql: SqlRunner, conversationId: number, target: { id: number; threadId: number | null }, at: Date) {
  if (target.threadId) {
    await sql.run(`UPDATE "Thread" SET "messageCount" = "messageCount" + 1, "lastMessageAt" = ? WHERE "id" = ?`, at, target.threadId);
    return target.threadId;
  }
  const thread = (await sql.one<{ id: number }>(
    `INSERT INTO "Thread" ("conversationId", "rootMessageId", "messageCount", "lastMessageAt", "createdAt") VALUES (?, ?, 2, ?, ?) RETURNING "id"`,
    conversationId, target.id, at, new Date(),
  ))!;
  await sql.run(`UPDATE "Message" SET "threadId" = ? WHERE "id" = ?`, thread.id, target.id);
  return thread.id;
}
