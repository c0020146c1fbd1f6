import type { Database } from "../../db/database";
import { messageThread } from "../../db/messages";
import { notFound } from "../../errors";
import { withAttachments } from "../../media/attachment-views";

/** The reply tree around a message (one query), its members with their files; 404 for an unknown message. */
export async function getMessageThread(db: Database, messageId: number) {
  const thread = await messageThread(db, messageId);
  if (!thread) throw notFound("message");
  return { ...thread, members: await withAttachments(db, thread.members) };
}
