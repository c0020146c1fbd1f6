import { findConversation } from "../../db/conversations";
import type { Database } from "../../db/database";
import { replayTotals, usageTotals } from "../../db/usage";
import { notFound } from "../../errors";

/** Tokens and spend of all a conversation's turns, and apart of its replays. */
export async function getConversationUsage(db: Database, conversationId: number) {
  if (!(await findConversation(db, conversationId))) throw notFound("conversation");
  const ever = { from: new Date(0), to: new Date("9999-12-31T00:00:00Z"), conversationId };
  const [totals, replays] = await Promise.all([usageTotals(db, ever), replayTotals(db, ever)]);
  return { conversationId, ...totals, replays };
}
