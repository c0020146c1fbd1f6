import type { Database } from "./database";
import { envelopeColumns, findEnvelope, type StoredEnvelope, withMetadata } from "./envelopes";
import type { Envelope } from "./generated/sqlite/client";
import { findMessage, type MessageWithConversation, messageFromJson } from "./messages";
import { prismaRowFromJson } from "./sql";

/**
 * What every turn reads first: its envelope, the envelope's message and the
 * message's conversation (null where missing). On PostgreSQL one statement, the
 * rows as JSON: three round trips cost the server more than the join costs the
 * database. On SQLite three indexed reads, which are calls into the library.
 */
export async function findEnvelopeWithMessage(
  db: Database,
  id: number,
): Promise<{ envelope: StoredEnvelope | null; message: MessageWithConversation | null }> {
  if (db.dialect !== "postgresql") {
    const envelope = await findEnvelope(db, id);
    return { envelope, message: envelope?.messageId ? await findMessage(db, envelope.messageId) : null };
  }
  type Rows = { e: Record<string, unknown>; m: Record<string, unknown> | null; c: Record<string, unknown> | null };
  const [row] = await db.read<Rows>(
    `SELECT to_jsonb(e) AS "e", to_jsonb(m) AS "m", to_jsonb(c) AS "c"
     FROM "Envelope" e LEFT JOIN "Message" m ON m."id" = e."messageId" LEFT JOIN "Conversation" c ON c."id" = m."conversationId"
     WHERE e."id" = ?`,
    id,
  );
  if (!row) return { envelope: null, message: null };
  return {
    envelope: withMetadata(prismaRowFromJson<Envelope>(row.e, envelopeColumns)),
    message: row.m && row.c ? messageFromJson(row.m, row.c) : null,
  };
}
