import type { Database } from "../db/database";
import { findConversation, findConversationWithActiveFork, markConversationRead } from "../db/conversations";
import { listConversationMessages } from "../db/messages";
import { notFound } from "../errors";
import { withAttachments } from "../media/attachment-views";

/** A page of a conversation's timeline, oldest first. Reading changes nothing (marking read is POST …/read). */
export async function getConversationTimeline(db: Database, id: number, options: { beforeId?: number; take: number }) {
  const conversation = await findConversationWithActiveFork(db, id);
  if (!conversation) throw notFound("conversation");
  const page = await listConversationMessages(db, id, { beforeId: options.beforeId, take: options.take + 1 });
  const hasMore = page.length > options.take;
  const messages = await withAttachments(db, page.slice(0, options.take).reverse());
  return { conversation, messages, nextBefore: hasMore ? messages[0].id : null };
}

export { findConversation };

/** The operator has seen the conversation up to now (its unread count drops to 0). */
export async function markRead(db: Database, id: number, now = new Date()) {
  if (!(await findConversation(db, id))) throw notFound("conversation");
  await markConversationRead(db, id, now);
}
