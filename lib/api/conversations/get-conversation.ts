import type { Database } from "../../db/database";
import { findConversation } from "../../db/conversations";
import { labelNamesOf } from "../../db/labels";
import { notFound } from "../../errors";
import { handoffView } from "../../pipeline/handoff";

/** One conversation as GET /conversations/{id} shows it, with its handoff and label names; 404 when there is none. */
export async function getConversation(db: Database, conversationId: number) {
  const [conversation, labels] = await Promise.all([findConversation(db, conversationId), labelNamesOf(db, [conversationId])]);
  if (!conversation) throw notFound("conversation");
  return { ...conversation, labels: labels.get(conversationId) ?? [], handoff: handoffView(conversation) };
}

export type GetConversationResponse = Awaited<ReturnType<typeof getConversation>>;
