import { type Changer, changeConversation, type ConversationPatch } from "../../pipeline/conversation-status";
import type { TurnDeps } from "../../pipeline/turn-deps";
import { getConversation } from "./get-conversation";

/** PATCH /conversations/{id}: changes status, snooze, assignee or the agent switch (each an envelope in the history), then reads it back. */
export async function updateConversation(deps: TurnDeps, conversationId: number, patch: ConversationPatch, by: Changer) {
  await changeConversation(deps, conversationId, patch, by);
  return getConversation(deps.db, conversationId);
}
