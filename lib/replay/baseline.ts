import { settingsFor } from "../settings/reader";
import type { Database } from "../db/database";
import { findDataset } from "../db/replays";
import { notFound } from "../errors";
import type { Settings } from "../settings/schema";

export type ReplayBaseline = {
  /** The settings a variant starts from (the form's prefill): what those turns' bot runs with. */
  settings: Settings;
  /** The turns belong to several bots: `settings` are the global ones, no bot's own. */
  spansBots: boolean;
};

/**
 * What a replay of turns in these conversations is measured against: when they all
 * belong to one bot, what that bot runs with (its own instructions and overrides over
 * the global settings), as for a single replay; across several bots, the global
 * settings (no one bot's would be right for the others).
 */
export async function replayBaseline(db: Database, conversationIds: number[]): Promise<ReplayBaseline> {
  const channels = conversationIds.length
    ? await db.prisma.conversation.findMany({
        where: { id: { in: [...new Set(conversationIds)] } },
        select: { channel: true },
        distinct: ["channel"],
      })
    : [];
  if (channels.length === 1) return { settings: await settingsFor(db, { adapter: channels[0].channel }), spansBots: false };
  return { settings: await settingsFor(db), spansBots: channels.length > 1 };
}

/** The baseline of a dataset's turns (a deleted turn counts for nothing, as a run skips it). */
export async function datasetBaseline(db: Database, datasetId: number): Promise<ReplayBaseline> {
  const dataset = await findDataset(db, datasetId);
  if (!dataset) throw notFound("dataset");
  const turns = await db.prisma.turn.findMany({
    where: { id: { in: dataset.turnIds as number[] } },
    select: { conversationId: true },
  });
  return replayBaseline(
    db,
    turns.map((t) => t.conversationId),
  );
}
