import type { Database } from "../../db/database";
import { findTurn, regeneratedBy, turnBot, turnNeighbours } from "../../db/turns";
import { notFound } from "../../errors";
import { attachmentViewsOf } from "../../media/attachment-views";

/** The prompt inspector's turn: what the model was shown, what it did, the turns around it, its bot and the message's files. */
export async function getTurn(db: Database, turnId: number) {
  const turn = await findTurn(db, turnId);
  if (!turn) throw notFound("turn");
  const messageId = turn.envelope.messageId;
  const [neighbours, bot, attachments, regenerations] = await Promise.all([
    turnNeighbours(db, turn),
    turnBot(db, turn.conversationId),
    messageId ? attachmentViewsOf(db, [messageId]).then((views) => views.get(messageId) ?? []) : [],
    regeneratedBy(db, turn.id),
  ]);
  return { ...turn, ...neighbours, bot, attachments, regeneratedBy: regenerations };
}
