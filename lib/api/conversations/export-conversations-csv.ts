import type { Caller } from "../../auth/operators";
import { listBots } from "../../db/bots";
import { type ConversationListOptions, listConversations } from "../../db/conversations";
import type { Database } from "../../db/database";
import { listOperators } from "../../db/operators";
import { conversationsCsv } from "../../inbox/export";

/** One inbox view as CSV (guarded against formula injection), senders named as the console names them. */
export async function exportConversationsCsv(
  db: Database,
  query: Omit<ConversationListOptions, "me" | "bots">,
  caller: Pick<Caller, "operator" | "bots">,
  botUsername: string | null,
) {
  const [rows, operators, bots] = await Promise.all([
    listConversations(db, { ...query, me: caller.operator.id, bots: caller.bots }),
    listOperators(db),
    listBots(db, { removed: true }),
  ]);
  return conversationsCsv(rows, { operators, bots, botUsername });
}
