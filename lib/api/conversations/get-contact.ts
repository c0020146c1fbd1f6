import { readContact } from "../../db/contact";
import type { Database } from "../../db/database";
import { listNotes } from "../../db/notes";
import { notFound } from "../../errors";

/** Who a conversation is with, and the operators' notes on it; 404 for an unknown conversation. */
export async function getContact(db: Database, conversationId: number) {
  const contact = await readContact(db, conversationId);
  if (contact === undefined) throw notFound("conversation");
  return { contact, notes: await listNotes(db, conversationId) };
}
