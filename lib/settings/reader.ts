import type { Database } from "../db/database";
import type { BotAgentRow, SettingRow, SettingsSnapshot } from "../db/settings-cache";
import { log } from "../log";
import { botAgentOf } from "./bot-agent";
import { defaultSettings, settingsSchema, type Settings } from "./schema";

/** Whose settings: a bot's (by its channel adapter or its id), or without one the global settings. */
export type SettingsScope = { adapter: string } | { botId: number };

/** The settings in force for one scope, with the global ones and the bot's row (its model) from the same snapshot. */
export type SettingsInForce = {
  /** The global settings, then the bot's overrides, then its instructions. Unset = inherit. */
  settings: Settings;
  /** The global settings alone (what a bot's override does not change, such as the per-user handoff limit). */
  global: Settings;
  /** The scope's bot, or null (no scope, or no such bot: the global settings). */
  bot: BotAgentRow | null;
};

/**
 * The only reader of settings: stored values over defaults, a bot's overrides
 * over those. Read once per inbound message and once per turn, and passed down,
 * so a change takes effect on the next message without a restart: at once on the
 * instance that made it, within a second on the others (one cache on the
 * Database for the setting rows and the bots' rows together:
 * lib/db/settings-cache.ts). A stored value that no longer validates falls back
 * to its default, logged.
 */
export async function settingsInForce(db: Database, scope?: SettingsScope): Promise<SettingsInForce> {
  const snapshot = await db.settingsCache.current();
  let memo = parsed.get(snapshot);
  if (!memo) {
    memo = { global: parse(snapshot.rows), bots: new Map() };
    parsed.set(snapshot, memo);
  }
  const bot = scope ? (snapshot.bots.find((b) => ("adapter" in scope ? b.adapter === scope.adapter : b.id === scope.botId)) ?? null) : null;
  if (!bot) return { settings: memo.global, global: memo.global, bot: null };
  let settings = memo.bots.get(bot.id);
  if (!settings) {
    const agent = botAgentOf(bot);
    settings = { ...memo.global, ...agent.settings, ...(agent.instructions !== null ? { agentInstructions: agent.instructions } : {}) };
    memo.bots.set(bot.id, settings);
  }
  return { settings, global: memo.global, bot };
}

/** The settings in force for a bot's conversations (by adapter or id), or the global ones without a scope. */
export async function settingsFor(db: Database, scope?: SettingsScope): Promise<Settings> {
  return (await settingsInForce(db, scope)).settings;
}

/** Validation and merging memoized per snapshot (a snapshot never changes; a new one is a new object). */
const parsed = new WeakMap<SettingsSnapshot, { global: Settings; bots: Map<number, Settings> }>();

function parse(rows: readonly SettingRow[]): Settings {
  const merged: Record<string, unknown> = { ...defaultSettings };
  for (const { key, value } of rows) {
    if (!(key in defaultSettings)) continue;
    const field = settingsSchema.shape[key as keyof Settings];
    const result = field.safeParse(value);
    if (result.success) merged[key] = result.data;
    else log.warn("settings.invalid_stored_value", { key });
  }
  return merged as Settings;
}
