import type { Database } from "../../db/database";
import { findTurnForMessage } from "../../db/turns";
import { notFound } from "../../errors";

/** The agent turn behind a message (the turn that answered it, or that wrote it). */
export async function getMessageTurn(db: Database, messageId: number) {
  const turnId = await findTurnForMessage(db, messageId);
  if (turnId === null) throw notFound("turn for this message");
  return { turnId };
}
