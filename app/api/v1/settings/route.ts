import { requireAdmin } from "@/lib/auth/roles";
import { withOperator } from "@/lib/http/api";
import { jsonOf, readJson } from "@/lib/http/respond";
import { settingsResponse, updatedSettingsResponse } from "@/lib/api/settings";
import { getSettings, listSettingChanges, updateSettings } from "@/lib/settings/store";
import { settingsUpdateSchema } from "@/lib/settings/schema";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx }) => {
  const [settings, changes] = await Promise.all([getSettings(ctx.db), listSettingChanges(ctx.db)]);
  return jsonOf(settingsResponse, { settings, changes });
});

/** Partial update; takes effect on the next message, on every instance (this one's worker looks again now: limits may have grown). */
export const PATCH = withOperator(async ({ request, ctx, caller }) => {
  requireAdmin(caller, "change settings");
  const update = await readJson(request, settingsUpdateSchema, 64 * 1024);
  const settings = await updateSettings(ctx.db, update, caller.operator.name);
  ctx.worker.kick();
  return jsonOf(updatedSettingsResponse, { settings });
});
