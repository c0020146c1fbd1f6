import { type BotScope, refuseConversationOutOfScope } from "@/lib/auth/bot-scope";
import { requireAdmin } from "@/lib/auth/roles";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { settingsForChannel } from "@/lib/bots/bot-config";
import type { Database } from "@/lib/db/database";
import { notFound } from "@/lib/errors";
import { settingsResponse, updatedSettingsResponse } from "@/lib/api/settings";
import { getSettings, listSettingChanges, updateSettings } from "@/lib/settings/store";
import { settingsUpdateSchema } from "@/lib/settings/schema";

export const dynamic = "force-dynamic";

/**
 * `?conversationId=`: the settings in force for that conversation's bot (its overrides and instructions over the
 * global ones); another bot's conversation is a 404 for an agent limited to some bots, as an unknown one.
 */
export const GET = withOperator(async ({ request, ctx, caller }) => {
  const id = new URL(request.url).searchParams.get("conversationId");
  const [settings, changes] = await Promise.all([
    id === null ? getSettings(ctx.db) : settingsOfConversation(ctx.db, idParam(id), caller.bots),
    listSettingChanges(ctx.db, caller.bots),
  ]);
  return jsonOf(settingsResponse, { settings, changes });
});

async function settingsOfConversation(db: Database, id: number, bots: BotScope | undefined) {
  await refuseConversationOutOfScope(db, bots, id);
  const conversation = await db.prisma.conversation.findUnique({ where: { id }, select: { channel: true } });
  if (!conversation) throw notFound("conversation");
  return settingsForChannel(db, conversation.channel);
}

/** Partial update; takes effect on the next message, on every instance (this one's worker looks again now: limits may have grown). */
export const PATCH = withOperator(async ({ request, ctx, caller }) => {
  requireAdmin(caller, "change settings");
  const update = await readJson(request, settingsUpdateSchema, 64 * 1024);
  const settings = await updateSettings(ctx.db, update, caller.operator.name);
  ctx.worker.kick();
  return jsonOf(updatedSettingsResponse, { settings });
});
