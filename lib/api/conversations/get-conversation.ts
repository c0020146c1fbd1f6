import type { Database } from "../../db/database";
import { findConversation } from "../../db/conversations";
import { notFound } from "../../errors";
import { handoffView } from "../../pipeline/handoff";

/** One conversation as GET /conversations/{id} shows it, with its handoff; 404 when there is none. */
export async function getConversation(db: Database, conversationId: number) {
  const conversation = await findConversation(db, conversationId);
  if (!conversation) throw notFound("conversation");
  return { ...conversation, handoff: handoffView(conversation) };
}

export type GetConversationResponse = Awaited<ReturnType<typeof getConversation>>;
