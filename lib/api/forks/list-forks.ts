import type { BotScope } from "../../auth/bot-scope";
import type { Database } from "../../db/database";
import { listForks as listRows } from "../../db/forks";

/** Forks, newest first, of one conversation or every one the caller's bots hold. */
export async function listForks(db: Database, filter: { conversationId?: number; take: number }, bots: BotScope | undefined) {
  return { forks: await listRows(db, { ...filter, bots }) };
}
