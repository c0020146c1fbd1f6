import { readSettings } from "@/lib/api/settings/read-settings";
import { settingsResponse, updatedSettingsResponse } from "@/lib/api/settings/schema";
import { updateSettings } from "@/lib/api/settings/update-settings";
import { jsonOf, readJson } from "@/lib/http/respond";
import { withOperator } from "@/lib/server/with-operator";
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
    const which = { conversationId: query.get("conversationId"), datasetId: query.get("datasetId") };
    return jsonOf(settingsResponse, await readSettings(ctx.db, which, caller.bots));
  },
  { role: "agent" },
);

/** Partial update; takes effect on the next message, on every instance (this one's worker looks again now: limits may have grown). */
export const PATCH = withOperator(
  async ({ request, ctx, caller }) => {
    const update = await readJson(request, settingsUpdateSchema, 64 * 1024);
    return jsonOf(updatedSettingsResponse, await updateSettings(ctx, update, caller.operator.name));
  },
  { role: "admin", to: "change settings" },
);
