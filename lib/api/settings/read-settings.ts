import { type BotScope, refuseConversationOutOfScope, refuseDatasets } from "../../auth/bot-scope";
import type { Database } from "../../db/database";
import { notFound } from "../../errors";
import { recordIdParam } from "../../record-id";
import { datasetBaseline, replayBaseline } from "../../replay/baseline";
import { settingsFor } from "../../settings/reader";
import { listSettingChanges } from "../../settings/store";

/** Which settings GET /settings answers: the global ones, those in force for one conversation's bot, or a dataset run's start. */
export type SettingsFor = { conversationId: string | null; datasetId: string | null };

/**
 * The settings and their change log as a caller sees them. `conversationId`: the settings in
 * force for that conversation's bot (its overrides and instructions over the global ones);
 * another bot's conversation is a 404 for an agent limited to some bots, as an unknown one.
 * `datasetId`: what a run of that dataset starts from (lib/replay/baseline.ts), with `spansBots`.
 */
export async function readSettings(db: Database, query: SettingsFor, bots: BotScope | undefined) {
  const [baseline, changes] = await Promise.all([baselineOf(db, query, bots), listSettingChanges(db, bots)]);
  return { ...baseline, changes };
}

async function baselineOf(db: Database, { conversationId, datasetId }: SettingsFor, bots: BotScope | undefined) {
  if (conversationId !== null) {
    const id = recordIdParam.parse(conversationId);
    await refuseConversationOutOfScope(db, bots, id);
    if (!(await db.prisma.conversation.findUnique({ where: { id }, select: { id: true } }))) throw notFound("conversation");
    return { settings: (await replayBaseline(db, [id])).settings };
  }
  if (datasetId !== null) {
    refuseDatasets(bots);
    return datasetBaseline(db, recordIdParam.parse(datasetId));
  }
  return { settings: await settingsFor(db) };
}
