import { findConversation } from "../db/conversations";
import type { Database } from "../db/database";
import { addNote, listNotes } from "../db/notes";
import { publish } from "../events/bus";
import { notFound } from "../errors";

/**
 * Internal notes: written by operators for each other. They live in their own
 * table, which no prompt builder reads, so a note never reaches the model, and
 * no adapter sends them.
 */
export async function addConversationNote(db: Database, conversationId: number, author: { id: number; name: string }, text: string) {
  if (!(await findConversation(db, conversationId))) throw notFound("conversation");
  const note = await addNote(db, { conversationId, operatorId: author.id, operatorName: author.name, text });
  publish(db, { type: "conversation", conversationId });
  return note;
}

export async function conversationNotes(db: Database, conversationId: number) {
  if (!(await findConversation(db, conversationId))) throw notFound("conversation");
  return listNotes(db, conversationId);
}
