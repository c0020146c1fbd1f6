import { type BotScope, refuseConversationOutOfScope, refuseDatasets } from "@/lib/auth/bot-scope";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { datasetBaseline, replayBaseline } from "@/lib/replay/baseline";
import type { Database } from "@/lib/db/database";
import { notFound } from "@/lib/errors";
import { settingsResponse, updatedSettingsResponse } from "@/lib/api/settings";
import { getSettings, listSettingChanges, updateSettings } from "@/lib/settings/store";
import { settingsUpdateSchema } from "@/lib/settings/schema";

export const dynamic = "force-dynamic";

/**
 * `?conversationId=`: the settings in force for that conversation's bot (its overrides and instructions over the
 * global ones); another bot's conversation is a 404 for an agent limited to some bots, as an unknown one.
 * `?datasetId=`: what a run of that dataset starts from (lib/replay/baseline.ts), with `spansBots`.
 */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = new URL(request.url).searchParams;
    const [baseline, changes] = await Promise.all([
      baselineOf(ctx.db, query.get("conversationId"), query.get("datasetId"), caller.bots),
      listSettingChanges(ctx.db, caller.bots),
    ]);
    return jsonOf(settingsResponse, { ...baseline, changes });
  },
  { role: "agent" },
);

async function baselineOf(db: Database, conversationId: string | null, datasetId: string | null, bots: BotScope | undefined) {
  if (conversationId !== null) {
    const id = idParam(conversationId);
    await refuseConversationOutOfScope(db, bots, id);
    if (!(await db.prisma.conversation.findUnique({ where: { id }, select: { id: true } }))) throw notFound("conversation");
    return { settings: (await replayBaseline(db, [id])).settings };
  }
  if (datasetId !== null) {
    refuseDatasets(bots);
    return datasetBaseline(db, idParam(datasetId));
  }
  return { settings: await getSettings(db) };
}

/** Partial update; takes effect on the next message, on every instance (this one's worker looks again now: limits may have grown). */
export const PATCH = withOperator(
  async ({ request, ctx, caller }) => {
    const update = await readJson(request, settingsUpdateSchema, 64 * 1024);
    const settings = await updateSettings(ctx.db, update, caller.operator.name);
    ctx.worker.kick();
    return jsonOf(updatedSettingsResponse, { settings });
  },
  { role: "admin", to: "change settings" },
);
