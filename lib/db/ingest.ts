import type { SqlRunner, SqlValue, WriteStatement } from "./sql";

/**
 * The statements of ingest on the hand-written path: reads and writes only, each
 * one statement, all run inside the caller's transaction (lib/pipeline/ingest.ts
 * composes them and decides what to write), except `storeOrdinaryMessage`, which
 * commits on its own.
 */

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

/**
 * Records a delivery's update id. A repeated one violates the unique key, which
 * rolls the whole transaction back (no SELECT first: one statement less on the hot path).
 */
export async function insertInboundUpdate(sql: SqlRunner, channel: string, updateId: string, at: Date) {
  await sql.run(`INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES (?, ?, ?)`, channel, updateId, at);
}

/** A chat (or forum topic) as ingest stores it; lib/channels/types.ts `InboundChat` is one. */
export type ChatRow = { id: string; type: string; title?: string; topic?: { chatId: string; id: string; name?: string } };

/** An inbound message's stored fields; lib/channels/types.ts `InboundMessage` is one. */
export type InboundMessageFields = {
  message: {
    id: string;
    text: string;
    sentAt: Date;
    topicId?: string;
    forwardedFrom?: string;
    viaBot?: string;
    mediaGroupId?: string;
    /** Message.shared, stored as JSON (lib/media/types.ts `SharedContent`). */
    shared?: Record<string, unknown>;
  };
  sender: { id: string; name: string; username?: string; isBot: boolean; role?: string; language?: string };
  replyTo?: { id?: string; text?: string; senderName?: string; fromSelf: boolean; chatTitle?: string };
  quote?: string;
  addressesBot: boolean;
};

export type IngestConversation = {
  id: number;
  agentEnabled: boolean | number;
  activeForkId: number | null;
  membership: string | null;
  /** The inbox status (open, resolved, snoozed): the user's message reopens or wakes it. */
  status: string;
};

/**
 * The conversation a chat (or forum topic) maps to, created on first sight. A topic
 * also makes sure its chat's own conversation exists, which the dashboard groups
 * it under. `touch` bumps activity and the history generation (a new message).
 */
export async function upsertConversation(
  sql: SqlRunner,
  channel: string,
  chat: ChatRow,
  at: Date,
  touch: boolean,
  /** A topic created or renamed: its name wins. Otherwise a name only fills a gap (replies carry the creation-time name). */
  renamed = false,
): Promise<IngestConversation> {
  const now = new Date();
  let parentId: number | null = null;
  if (chat.topic) {
    parentId = (await sql.one<{ id: number }>(
      `INSERT INTO "Conversation" ("channel", "botId", "platformChatId", "type", "title", "createdAt", "updatedAt")
       VALUES (?, (SELECT "id" FROM "Bot" WHERE "adapter" = ?), ?, ?, ?, ?, ?)
       ON CONFLICT ("channel", "platformChatId") DO UPDATE SET "title" = COALESCE(excluded."title", "Conversation"."title")
       RETURNING "id"`,
      channel,
      channel,
      chat.topic.chatId,
      chat.type,
      chat.title,
      now,
      now,
    ))!.id;
  }
  const upsert = conversationUpsert(channel, chat, at, touch, renamed, parentId);
  return (await sql.one<IngestConversation>(upsert.text, ...upsert.params))!;
}

function conversationUpsert(
  channel: string,
  chat: ChatRow,
  at: Date,
  touch: boolean,
  renamed: boolean,
  parentId: number | null,
  /** An existing conversation is updated (and returned) only where this holds. */
  onlyIf = "",
  now = new Date(),
): Statement {
  return {
    text: `INSERT INTO "Conversation" ("channel", "botId", "platformChatId", "type", "title", "topicId", "topicName", "parentConversationId", "lastMessageAt", "waitingSince", "createdAt", "updatedAt")
     VALUES (?, (SELECT "id" FROM "Bot" WHERE "adapter" = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("channel", "platformChatId") DO UPDATE SET
       "title" = CASE WHEN ? THEN COALESCE(excluded."title", "Conversation"."title") ELSE "Conversation"."title" END,
       "topicName" = CASE WHEN ? THEN COALESCE(excluded."topicName", "Conversation"."topicName") ELSE COALESCE("Conversation"."topicName", excluded."topicName") END,
       "lastMessageAt" = CASE WHEN ? THEN excluded."lastMessageAt" ELSE "Conversation"."lastMessageAt" END,
       "generation" = "Conversation"."generation" + CASE WHEN ? THEN 1 ELSE 0 END,
       "waitingSince" = CASE WHEN ? THEN COALESCE("Conversation"."waitingSince", excluded."lastMessageAt") ELSE "Conversation"."waitingSince" END,
       "updatedAt" = CASE WHEN ? THEN excluded."updatedAt" ELSE "Conversation"."updatedAt" END${onlyIf && `\n     WHERE ${onlyIf}`}
     RETURNING "id", "agentEnabled", "activeForkId", "membership", "status"`,
    params: [
      channel,
      channel,
      chat.id,
      chat.type,
      chat.title,
      chat.topic?.id ?? null,
      chat.topic?.name ?? null,
      parentId,
      touch ? at : null,
      touch ? at : null,
      now,
      now,
      touch,
      renamed,
      touch,
      touch,
      touch,
      touch,
    ],
  };
}

/**
 * Records a delivery's update id and upserts its conversation (`insertInboundUpdate`,
 * then `upsertConversation`). On PostgreSQL, for a chat without topics, one statement:
 * the update id's insert is a data-modifying CTE of the upsert, and a repeated id
 * still fails the whole statement, and with it the transaction.
 */
export async function recordUpdateAndConversation(
  sql: SqlRunner,
  update: { channel: string; updateId: string; receivedAt: Date },
  chat: ChatRow,
  at: Date,
  touch: boolean,
): Promise<IngestConversation> {
  if (sql.dialect !== "postgresql" || chat.topic) {
    await insertInboundUpdate(sql, update.channel, update.updateId, update.receivedAt);
    return upsertConversation(sql, update.channel, chat, at, touch);
  }
  const upsert = conversationUpsert(update.channel, chat, at, touch, false, null);
  return (await sql.one<IngestConversation>(
    `WITH "update" AS (INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") VALUES (?, ?, ?)) ${upsert.text}`,
    update.channel,
    update.updateId,
    update.receivedAt,
    ...upsert.params,
  ))!;
}

/**
 * A chat and its forum topics: the chat's key and a LIKE pattern its topics' keys match
 * (how a topic's key is written is the channel's: lib/channels/topic-key.ts `chatFamily`).
 */
export type ChatFamily = { chatId: string; topicKeysLike: string };

/** Clears the blocked/removed mark of a chat and its topics, unless it changed after `at`. */
export async function clearMembership(sql: SqlRunner, channel: string, { chatId, topicKeysLike }: ChatFamily, at: Date) {
  await sql.run(
    `UPDATE "Conversation" SET "membership" = NULL, "membershipChangedAt" = ?
     WHERE "channel" = ? AND ("platformChatId" = ? OR "platformChatId" LIKE ?) AND "membership" IS NOT NULL AND "membershipChangedAt" < ?`,
    at,
    channel,
    chatId,
    topicKeysLike,
    at,
  );
}

/** Sets the bot's membership of a chat and its topics, unless a later change is already stored. */
export async function setMembership(
  sql: SqlRunner,
  channel: string,
  { chatId, topicKeysLike }: ChatFamily,
  membership: string | null,
  at: Date,
) {
  await sql.run(
    `UPDATE "Conversation" SET "membership" = ?, "membershipChangedAt" = ?, "updatedAt" = ?
     WHERE "channel" = ? AND ("platformChatId" = ? OR "platformChatId" LIKE ?) AND ("membershipChangedAt" IS NULL OR "membershipChangedAt" <= ?)`,
    membership,
    at,
    new Date(),
    channel,
    chatId,
    topicKeysLike,
    at,
  );
}

/** Marks a chat's message deleted by its platform id; the number of rows changed (0: unknown). */
export async function markMessageDeleted(sql: SqlRunner, channel: string, chatId: string, platformMessageId: string, at: Date) {
  return sql.run(
    `UPDATE "Message" SET "deletedAt" = ? WHERE "platformMessageId" = ? AND "conversationId" IN
       (SELECT "id" FROM "Conversation" WHERE "channel" = ? AND "platformChatId" = ?)`,
    at,
    platformMessageId,
    channel,
    chatId,
  );
}

/** An empty, deleted message holding a platform id, so a late copy of it is a duplicate. */
export async function insertDeletedPlaceholder(sql: SqlRunner, conversationId: number, platformMessageId: string, at: Date) {
  await sql.run(
    `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderIsBot", "text", "platformMessageId", "mentionsBot", "sentAt", "deletedAt", "createdAt")
     VALUES (?, 'inbound', 'user', ?, '', ?, ?, ?, ?, ?)`,
    conversationId,
    false,
    platformMessageId,
    false,
    at,
    at,
    new Date(),
  );
}

export type StoredPlatformMessage = {
  id: number;
  text: string;
  editedAt: Date | null;
  threadId: number | null;
  senderKind: string;
  forkId: number | null;
};

/** A conversation's message by its platform id (an edit's original, a reply's target). */
export async function findByPlatformId(
  sql: SqlRunner,
  conversationId: number,
  platformMessageId: string,
): Promise<StoredPlatformMessage | undefined> {
  const row = await sql.one<Omit<StoredPlatformMessage, "editedAt"> & { editedAt: string | Date | null }>(
    `SELECT "id", "text", "editedAt", "threadId", "senderKind", "forkId" FROM "Message" WHERE "conversationId" = ? AND "platformMessageId" = ?`,
    conversationId,
    platformMessageId,
  );
  return row && { ...row, editedAt: row.editedAt === null ? null : new Date(row.editedAt) };
}

/** Keeps an earlier text of a message. */
export async function insertRevision(sql: SqlRunner, messageId: number, text: string, replacedAt: Date) {
  await sql.run(`INSERT INTO "MessageRevision" ("messageId", "text", "replacedAt") VALUES (?, ?, ?)`, messageId, text, replacedAt);
}

export async function updateMessageText(sql: SqlRunner, messageId: number, text: string, editedAt: Date) {
  await sql.run(`UPDATE "Message" SET "text" = ?, "editedAt" = ? WHERE "id" = ?`, text, editedAt, messageId);
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
    conversationId,
    target.id,
    at,
    new Date(),
  ))!;
  await sql.run(`UPDATE "Message" SET "threadId" = ? WHERE "id" = ?`, thread.id, target.id);
  return thread.id;
}

export type RoutingFork = {
  id: number;
  kind: string;
  status: string;
  startedAt: Date;
  title: string | null;
  baseMessageId: number | null;
  parentForkId: number | null;
};

/** A fork as fork routing reads it (the one replied to, the active one). */
export async function findRoutingFork(sql: SqlRunner, id: number): Promise<RoutingFork | undefined> {
  const row = await sql.one<Omit<RoutingFork, "startedAt"> & { startedAt: string | Date }>(
    `SELECT "id", "kind", "status", "startedAt", "title", "baseMessageId", "parentForkId" FROM "Fork" WHERE "id" = ?`,
    id,
  );
  return row && { ...row, startedAt: new Date(row.startedAt) };
}

export type NewInteractiveFork = {
  conversationId: number;
  parentForkId: number;
  startedBy: string;
  title: string | null;
  baseMessageId: number | null;
};

/** Inserts an active interactive fork and makes it the conversation's active fork. */
export async function openInteractiveFork(sql: SqlRunner, fork: NewInteractiveFork, now: Date): Promise<number> {
  const { id } = (await sql.one<{ id: number }>(
    `INSERT INTO "Fork" ("conversationId", "kind", "status", "parentForkId", "startedBy", "title", "baseMessageId", "startedAt", "lastActivityAt")
     VALUES (?, 'interactive', 'active', ?, ?, ?, ?, ?, ?) RETURNING "id"`,
    fork.conversationId,
    fork.parentForkId,
    fork.startedBy,
    fork.title,
    fork.baseMessageId,
    now,
    now,
  ))!;
  await sql.run(`UPDATE "Conversation" SET "activeForkId" = ?, "updatedAt" = ? WHERE "id" = ?`, id, now, fork.conversationId);
  return id;
}

/** A message arrived in the fork: it is not idle (its idle warning is reset). */
export async function touchFork(sql: SqlRunner, id: number, at: Date) {
  await sql.run(`UPDATE "Fork" SET "lastActivityAt" = ?, "idleWarnings" = 0 WHERE "id" = ?`, at, id);
}

export type InboundMessageRow = {
  conversationId: number;
  message: InboundMessageFields;
  replyToMessageId: number | null;
  threadId: number | null;
  forkId: number | null;
  editedAt: Date | null;
};

/** The inbound message; the same platform id again violates the (conversation, platform id) key. */
async function insertInboundMessage(sql: SqlRunner, row: InboundMessageRow, now: Date): Promise<number> {
  const { text, params } = inboundMessageInsert(row, now);
  return (await sql.one<{ id: number }>(text, ...params))!.id;
}

/** A statement's text and parameters, for composing two into one (PostgreSQL's data-modifying CTEs). */
type Statement = { text: string; params: SqlValue[] };

/**
 * The inbound message's insert. `from` names where its conversation id comes from
 * instead of a parameter, and the CTEs it is selected from (`storeOrdinaryMessage`),
 * so the row is inserted only when they returned one.
 */
function inboundMessageInsert(row: InboundMessageRow, now: Date, from?: { conversation: string; tables: string }): Statement {
  const msg = row.message;
  const columns = `"Message" ("conversationId", "direction", "senderKind", "senderPlatformId", "senderName", "senderUsername", "senderIsBot",
       "senderRole", "senderLanguage", "text", "forwardedFrom", "viaBot", "platformMessageId", "platformTopicId", "replyToMessageId", "replyToPlatformId",
       "replyToText", "replyToSenderName", "replyToSenderIsBot", "replyToChatTitle", "quoteText", "threadId", "forkId", "mentionsBot", "sentAt", "editedAt",
       "mediaGroupId", "shared", "createdAt")`;
  const values = `'inbound', 'user', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`;
  const params: SqlValue[] = [
    msg.sender.id,
    msg.sender.name,
    msg.sender.username,
    msg.sender.isBot,
    msg.sender.role,
    msg.sender.language ?? null,
    msg.message.text,
    msg.message.forwardedFrom,
    msg.message.viaBot,
    msg.message.id,
    msg.message.topicId,
    row.replyToMessageId,
    msg.replyTo?.id,
    msg.replyTo?.text,
    msg.replyTo?.senderName,
    msg.replyTo ? msg.replyTo.fromSelf : null,
    msg.replyTo?.chatTitle,
    msg.quote,
    row.threadId,
    row.forkId,
    msg.addressesBot,
    msg.message.sentAt,
    row.editedAt,
    msg.message.mediaGroupId ?? null,
    msg.message.shared ?? null,
    now,
  ];
  return from === undefined
    ? { text: `INSERT INTO ${columns}\n     VALUES (?, ${values}) RETURNING "id"`, params: [row.conversationId, ...params] }
    : { text: `INSERT INTO ${columns}\n     SELECT ${from.conversation}, ${values} FROM ${from.tables} RETURNING "id"`, params };
}

/** An Attachment row as ingest writes it; lib/media/intake.ts `attachmentRows` makes them (and decides each status). */
export type AttachmentInsert = {
  kind: string;
  source: string;
  sourceRef: string;
  platformFileUniqueId?: string;
  mimeType?: string;
  fileName?: string;
  sizeBytes?: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
  details?: Record<string, unknown>;
  status: string;
  error: string | null;
};

/**
 * A message's attachments as ingest records them (lib/media/intake.ts decides each
 * one's status): one statement each, in the message's transaction. A pending one
 * is due for the fetch job at once (`nextAttemptAt`).
 */
export async function insertAttachments(sql: SqlRunner, messageId: number, rows: AttachmentInsert[], now: Date) {
  for (const [position, a] of rows.entries()) {
    await sql.run(
      `INSERT INTO "Attachment" ("messageId", "position", "kind", "mimeType", "fileName", "sizeBytes", "width", "height", "durationSeconds",
         "status", "error", "source", "sourceRef", "platformFileUniqueId", "details", "nextAttemptAt", "createdAt", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      messageId,
      position,
      a.kind,
      a.mimeType ?? null,
      a.fileName ?? null,
      a.sizeBytes ?? null,
      a.width ?? null,
      a.height ?? null,
      a.durationSeconds ?? null,
      a.status,
      a.error,
      a.source,
      a.sourceRef,
      a.platformFileUniqueId ?? null,
      a.details ?? null,
      a.status === "pending" ? now : null,
      now,
      now,
    );
  }
}

export type InboundEnvelopeRow = {
  from: string;
  to: string;
  /** pending: the agent answers it; done: stored only. */
  status: "pending" | "done";
  text: string;
  conversationId: number;
  messageId: number;
  forkId: number | null;
  metadata: Record<string, unknown>;
};

async function insertInboundEnvelope(sql: SqlRunner, row: InboundEnvelopeRow, now: Date): Promise<number> {
  return (await sql.one<{ id: number }>(...inboundEnvelopeInsert(row, "?", now)))!.id;
}

function inboundEnvelopeInsert(row: Omit<InboundEnvelopeRow, "messageId"> & { messageId?: number }, messageId: string, now: Date) {
  const params: SqlValue[] = [row.from, row.to, row.status, row.text, row.conversationId];
  if (row.messageId !== undefined) params.push(row.messageId);
  params.push(row.forkId, row.metadata, row.status === "done" ? now : null, now, now);
  return [
    `INSERT INTO "Envelope" ("from", "to", "status", "text", "conversationId", "messageId", "forkId", "metadata", "doneAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ${messageId}, ?, ?, ?, ?, ?) RETURNING "id"`,
    ...params,
  ] as const;
}

/**
 * The inbound message and its envelope. On PostgreSQL one statement (the envelope
 * takes the message's id from a data-modifying CTE): two round trips of every
 * webhook's transaction become one. A repeated platform id fails it as before.
 */
export async function insertInboundMessageAndEnvelope(
  sql: SqlRunner,
  message: InboundMessageRow,
  envelope: Omit<InboundEnvelopeRow, "messageId">,
  now: Date,
): Promise<{ messageId: number; envelopeId: number }> {
  if (sql.dialect !== "postgresql") {
    const messageId = await insertInboundMessage(sql, message, now);
    return { messageId, envelopeId: await insertInboundEnvelope(sql, { ...envelope, messageId }, now) };
  }
  const insert = inboundMessageInsert(message, now);
  const [text, ...params] = inboundEnvelopeInsert(envelope, `(SELECT "id" FROM "message")`, now);
  const row = (await sql.one<{ id: number; messageId: number }>(
    `WITH "message" AS (${insert.text}) ${text.replace(/RETURNING "id"$/, `RETURNING "id", "messageId"`)}`,
    ...insert.params,
    ...params,
  ))!;
  return { messageId: row.messageId, envelopeId: row.id };
}

/**
 * The commonest inbound message on PostgreSQL in one statement, committed on its
 * own: a new text in a chat without topics, replying to nothing we would look up,
 * whose conversation is (or becomes) open, agent on, with no fork and no
 * membership mark. The conversation's upsert updates only such a row (ON CONFLICT
 * ... WHERE), and the update id, message and envelope are inserted from its
 * result, so for any other conversation nothing is written and this returns
 * undefined: the caller stores it the long way. A repeated update or platform id
 * fails the statement (unique violation), as in the transaction. One round trip
 * instead of four (BEGIN, two statements, COMMIT) on the path of every webhook.
 */
export async function storeOrdinaryMessage(
  write: <T>(statement: WriteStatement) => Promise<T[]>,
  update: { channel: string; updateId: string },
  chat: ChatRow,
  message: InboundMessageFields,
  envelope: Omit<InboundEnvelopeRow, "messageId" | "conversationId" | "forkId">,
): Promise<{ conversationId: number; messageId: number; envelopeId: number } | undefined> {
  // Built when the write holds its connection: the rows' times are the commit's, not
  // the moment it queued for the pool (the burst debounce counts from the envelope's).
  const [row] = await write<{ id: number; messageId: number; conversationId: number }>(() => {
    const now = new Date();
    const upsert = conversationUpsert(
      update.channel,
      chat,
      message.message.sentAt,
      true,
      false,
      null,
      `"Conversation"."status" = 'open' AND "Conversation"."agentEnabled" AND "Conversation"."activeForkId" IS NULL AND "Conversation"."membership" IS NULL`,
      now,
    );
    const insert = inboundMessageInsert(
      { message, replyToMessageId: null, threadId: null, forkId: null, editedAt: null, conversationId: 0 },
      now,
      // Reading "update" runs its insert first: a repeated update id fails before the message takes an id.
      { conversation: `"conversation"."id"`, tables: `"conversation", "update"` },
    );
    return [
      `WITH "conversation" AS (${upsert.text}),
       "update" AS (INSERT INTO "InboundUpdate" ("channel", "updateId", "receivedAt") SELECT ?, ?, ? FROM "conversation" RETURNING 1),
       "message" AS (${insert.text})
       INSERT INTO "Envelope" ("from", "to", "status", "text", "conversationId", "messageId", "forkId", "metadata", "doneAt", "createdAt", "updatedAt")
       SELECT ?, ?, ?, ?, "conversation"."id", "message"."id", NULL, ?, ?, ?, ? FROM "conversation", "message"
       RETURNING "id", "messageId", "conversationId"`,
      ...upsert.params,
      update.channel,
      update.updateId,
      now,
      ...insert.params,
      envelope.from,
      envelope.to,
      envelope.status,
      envelope.text,
      envelope.metadata,
      envelope.status === "done" ? now : null,
      now,
      now,
    ];
  });
  return row && { conversationId: row.conversationId, messageId: row.messageId, envelopeId: row.id };
}
