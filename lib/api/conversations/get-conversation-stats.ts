import { findConversation } from "../../db/conversations";
import type { Database } from "../../db/database";
import { conversationStats } from "../../db/stats";
import { notFound } from "../../errors";

/** Activity per hour over two days and the agent's turn latencies, for the conversation's charts. */
export async function getConversationStats(db: Database, conversationId: number, now = new Date()) {
  if (!(await findConversation(db, conversationId))) throw notFound("conversation");
  return conversationStats(db, conversationId, now);
}
