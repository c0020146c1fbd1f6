import type { Caller } from "../../auth/operators";
import { listBots } from "../../db/bots";
import { listConversations } from "../../db/conversations";
import type { Database } from "../../db/database";
import { listOperators } from "../../db/operators";
import { conversationsCsv } from "../../inbox/export";
import { type ConversationListQuery, listOptions } from "./list-conversations";

/** One inbox view as CSV (guarded against formula injection), senders named as the console names them. */
export async function exportConversationsCsv(
  db: Database,
  query: ConversationListQuery,
  caller: Pick<Caller, "operator" | "bots">,
  botUsername: string | null,
) {
  const [rows, operators, bots] = await Promise.all([
    listOptions(db, query, caller).then((options) => listConversations(db, options)),
    listOperators(db),
    listBots(db, { removed: true }),
  ]);
  return conversationsCsv(rows, { operators, bots, botUsername });
}
