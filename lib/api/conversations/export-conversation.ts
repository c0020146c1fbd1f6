import { readConversationExport } from "../../db/conversation-export";
import type { Database } from "../../db/database";
import { notFound } from "../../errors";
import { conversationText } from "../../inbox/export";

/** The whole conversation as a download's body: JSON, or plain text to read; 404 for an unknown conversation. */
export async function exportConversation(db: Database, conversationId: number, format: "json" | "text") {
  const data = await readConversationExport(db, conversationId);
  if (!data) throw notFound("conversation");
  return format === "text" ? conversationText(data) : JSON.stringify(data, null, 2);
}
