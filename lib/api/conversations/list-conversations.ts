import type { Caller } from "../../auth/operators";
import { listBotLabels } from "../../db/bots";
import { type ConversationListOptions, countInboxViews, listConversations as listRows } from "../../db/conversations";
import type { Database } from "../../db/database";

/** One inbox view for an operator, with the counts of every view and the names of the bots they see. */
export async function listConversations(
  db: Database,
  query: Omit<ConversationListOptions, "me" | "bots">,
  caller: Pick<Caller, "operator" | "bots">,
) {
  const [conversations, counts, bots] = await Promise.all([
    listRows(db, { ...query, me: caller.operator.id, bots: caller.bots }),
    countInboxViews(db, caller.operator.id, caller.bots),
    listBotLabels(db, caller.bots),
  ]);
  return { conversations, counts, bots };
}
