import type { BotScope } from "../../auth/bot-scope";
import type { Database } from "../../db/database";
import { envelopeThread } from "../../db/envelope-threads";
import { notFound } from "../../errors";

/** The chain from an envelope up to its root and the tree below that root (one query), of the caller's bots only. */
export async function getEnvelopeThread(db: Database, envelopeId: number, bots: BotScope | undefined) {
  const thread = await envelopeThread(db, envelopeId, bots);
  if (!thread) throw notFound("envelope");
  return thread;
}
