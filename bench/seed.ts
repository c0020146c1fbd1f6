import Database from "better-sqlite3";
import { sqlitePath } from "../lib/db/migrations.mjs";

/**
 * Bulk-loads one conversation with `count` messages straight through
 * better-sqlite3 (Prisma would take minutes for a million rows): one minute
 * apart, every 10th a reply to the one 50 before it. Returns the conversation id.
 */
export function seedConversation(url: string, count: number, chatId = "bench") {
  const db = new Database(sqlitePath(url));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const now = new Date().toISOString();
  const conversationId = Number(
    db
      .prepare(
        `INSERT INTO "Conversation" (channel, platformChatId, type, title, generation, createdAt, updatedAt) VALUES ('telegram', ?, 'private', 'bench', 0, ?, ?)`,
      )
      .run(chatId, now, now).lastInsertRowid,
  );
  const insert = db.prepare(
    `INSERT INTO "Message" (conversationId, direction, senderKind, senderName, senderIsBot, text, platformMessageId, replyToMessageId, replyToText, mentionsBot, sentAt, createdAt)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const start = Date.parse("2020-01-01T00:00:00Z");
  let firstId = 0;
  const load = db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const agent = i % 2 === 1;
      const replyTo = i % 10 === 9 && i >= 50 ? firstId + i - 50 : null;
      const id = Number(
        insert.run(
          conversationId,
          agent ? "outbound" : "inbound",
          agent ? "agent" : "user",
          agent ? "main" : "Alice",
          `message number ${i} with some ordinary text in it`,
          String(i + 1),
          replyTo,
          replyTo ? "quoted" : null,
          new Date(start + i * 60_000).toISOString(),
          now,
        ).lastInsertRowid,
      );
      if (i === 0) firstId = id;
    }
  });
  load();
  db.close();
  return { conversationId, firstId, lastId: firstId + count - 1 };
}

/**
 * A reply tree of `size` messages in one thread: each message replies to one of
 * the earlier ones (three replies each, breadth first), agent and users taking
 * turns. Returns the root message's id.
 */
export function seedReplyTree(url: string, size: number, chatId = "tree") {
  const db = new Database(sqlitePath(url));
  db.pragma("busy_timeout = 10000");
  const now = new Date().toISOString();
  const conversationId = Number(
    db
      .prepare(
        `INSERT INTO "Conversation" (channel, platformChatId, type, title, generation, createdAt, updatedAt, lastMessageAt) VALUES ('telegram',?,'group','Big tree',0,?,?,?)`,
      )
      .run(chatId, now, now, now).lastInsertRowid,
  );
  const insert = db.prepare(
    `INSERT INTO "Message" (conversationId, direction, senderKind, senderName, senderIsBot, text, platformMessageId, replyToMessageId, threadId, mentionsBot, sentAt, createdAt) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 0, ?, ?)`,
  );
  let rootId = 0;
  let lastId = 0;
  db.transaction(() => {
    const ids: number[] = [];
    for (let i = 0; i < size; i++) {
      const parent = i === 0 ? null : ids[Math.floor((i - 1) / 3)];
      const agent = i % 2 === 1;
      const id = Number(
        insert.run(
          conversationId,
          agent ? "outbound" : "inbound",
          agent ? "agent" : "user",
          agent ? "main" : `User ${i % 7}`,
          `tree message ${i}`,
          String(i + 1),
          parent,
          null,
          new Date(Date.parse("2026-01-01") + i * 1000).toISOString(),
          now,
        ).lastInsertRowid,
      );
      ids.push(id);
    }
    rootId = ids[0];
    lastId = ids[ids.length - 1];
    const thread = Number(
      db
        .prepare(`INSERT INTO "Thread" (conversationId, rootMessageId, messageCount, lastMessageAt, createdAt) VALUES (?, ?, ?, ?, ?)`)
        .run(conversationId, rootId, size, now, now).lastInsertRowid,
    );
    db.prepare(`UPDATE "Message" SET threadId = ? WHERE conversationId = ?`).run(thread, conversationId);
  })();
  db.close();
  return { conversationId, rootId, lastId };
}
