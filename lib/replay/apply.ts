import { settingsFor } from "../settings/reader";
import { botSettingEntries } from "../bots/bot-config";
import { botAgentOf } from "../settings/bot-agent";
import type { Database } from "../db/database";
import type { BotChange } from "../db/bots";
import { writeBotChange } from "../db/settings";
import { publish } from "../events/bus";
import type { Settings } from "../settings/schema";
import { updateSettings } from "../settings/store";

export type AppliedVariant = {
  settings: Settings;
  applied: string[];
  notApplied: string[];
  /** Keys the replayed turns' bot overrides: written to that bot, where they take effect. */
  bot: { id: number; name: string; applied: string[] } | null;
};

/**
 * "Apply these settings": what a replay or run tried becomes the live settings, through
 * the settings store or the bot's own settings (validated, each with its change-log entry). The variant's instructions
 * are the agent's instructions; a model cannot be applied here (the server's model is
 * its environment's), so it is reported as not applied.
 *
 * With several bots, what was tried must be what goes live for the bot whose turns
 * were replayed: a key that bot overrides (its own instructions, a setting of its
 * own) would hide a global change, so that key is written to the bot instead. The
 * rest is global, as before. `conversationIds`: the replayed turns' conversations.
 */
export async function applyVariant(
  db: Database,
  variant: unknown,
  changedBy: string,
  conversationIds: number[] = [],
): Promise<AppliedVariant> {
  const v = (variant ?? {}) as { instructions?: string; settings?: Record<string, unknown>; model?: unknown };
  const update: Record<string, unknown> = { ...(v.settings ?? {}) };
  if (typeof v.instructions === "string") update.agentInstructions = v.instructions;
  const bot = await singleBotOf(db, conversationIds);
  const toBot: Record<string, unknown> = {};
  if (bot) {
    const agent = botAgentOf(bot);
    for (const key of Object.keys(update)) {
      const overridden = key === "agentInstructions" ? agent.instructions !== null : key in agent.settings;
      if (!overridden) continue;
      toBot[key] = update[key];
      delete update[key];
    }
  }
  const settings = Object.keys(update).length ? await updateSettings(db, update, changedBy) : await settingsFor(db);
  if (bot && Object.keys(toBot).length) {
    const { agentInstructions, ...rest } = toBot;
    const overrides = { ...botAgentOf(bot).settings, ...rest };
    const change: BotChange = {
      ...(typeof agentInstructions === "string" ? { instructions: agentInstructions } : {}),
      ...(Object.keys(rest).length ? { settings: JSON.stringify(overrides) } : {}),
    };
    await writeBotChange(db, bot.id, change, { entries: botSettingEntries(bot, change), changedBy });
    publish(db, { type: "settings" });
  }
  return {
    settings,
    applied: Object.keys(update),
    notApplied: v.model ? ["model"] : [],
    bot: bot && Object.keys(toBot).length ? { id: bot.id, name: bot.name, applied: Object.keys(toBot) } : null,
  };
}

/** The one bot all these conversations belong to, or null (none, or several). */
async function singleBotOf(db: Database, conversationIds: number[]) {
  if (conversationIds.length === 0) return null;
  const rows = await db.prisma.conversation.findMany({
    where: { id: { in: [...new Set(conversationIds)] } },
    select: { botId: true },
    distinct: ["botId"],
  });
  if (rows.length !== 1 || rows[0].botId === null) return null;
  return db.prisma.bot.findUnique({ where: { id: rows[0].botId } });
}
