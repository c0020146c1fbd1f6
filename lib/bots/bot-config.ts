import { z } from "zod";
import { MODEL_PROVIDERS } from "../agent/providers";
import type { Database } from "../db/database";
import { findBotByAdapter, type BotChange, type BotRow } from "../db/bots";
import type { SettingChangeEntry } from "../db/settings";
import { changedEntries } from "../settings/change-log";
import { settingsUpdateSchema, type Settings } from "../settings/schema";
import { getSettings } from "../settings/store";

/** A bot's own model: provider and model name, an optional base URL; its key is stored apart, sealed. */
export const botModelSchema = z.strictObject({
  provider: z.enum(MODEL_PROVIDERS),
  model: z.string().min(1).max(200),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional(),
});
export type BotModel = z.infer<typeof botModelSchema>;

export { platformOfAdapter as platformOf } from "../envelope/address";

/** A bot row's stored agent parts, parsed; a stored value that no longer validates is ignored (inherit). */
export function botAgentOf(row: Pick<BotRow, "instructions" | "model" | "settings">) {
  const model = row.model ? botModelSchema.safeParse(JSON.parse(row.model)) : null;
  const overrides = row.settings ? settingsUpdateSchema.safeParse(JSON.parse(row.settings)) : null;
  return {
    instructions: row.instructions,
    model: model?.success ? model.data : null,
    settings: overrides?.success ? overrides.data : {},
  };
}

/**
 * The change-log entries of a change to a bot's own settings: its instructions (as
 * `agentInstructions`), each overridden key, and its model (with whether its key is
 * none, the stored one or a new one: never the key). null = inherits the global value.
 */
export function botSettingEntries(row: BotRow, change: BotChange): SettingChangeEntry[] {
  const before = botAgentOf(row);
  const after = botAgentOf({ ...row, ...change });
  const modelOf = (model: BotModel | null, key: "none" | "stored" | "new") => (model ? { ...model, apiKey: key } : null);
  const keyBefore = row.modelApiKey === null ? "none" : "stored";
  const keyAfter = change.modelApiKey === undefined ? keyBefore : change.modelApiKey === null ? "none" : "new";
  return changedEntries(
    { ...before.settings, agentInstructions: before.instructions, model: modelOf(before.model, keyBefore) },
    { ...after.settings, agentInstructions: after.instructions, model: modelOf(after.model, keyAfter) },
    ["agentInstructions", ...new Set([...Object.keys(before.settings), ...Object.keys(after.settings)]), "model"],
  );
}

type Cached = { at: number; rows: Map<string, BotRow | null> };
const caches = new WeakMap<Database, Cached>();
/** Like the settings' cache: a change applies within a second on every instance. */
const TTL_MS = 1000;

/** The bot a channel adapter answers as (cached per database for a second). */
export async function botOfAdapter(db: Database, adapter: string): Promise<BotRow | null> {
  let cache = caches.get(db);
  if (!cache || Date.now() - cache.at > TTL_MS) {
    cache = { at: Date.now(), rows: new Map() };
    caches.set(db, cache);
  }
  if (!cache.rows.has(adapter)) cache.rows.set(adapter, await findBotByAdapter(db, adapter));
  return cache.rows.get(adapter) ?? null;
}

/** Forgets cached bot rows at once (this instance changed one). */
export function forgetBots(db: Database) {
  caches.delete(db);
}

/**
 * The settings in force for one bot's conversations: the global settings, then
 * the bot's overrides, then its instructions. Unset = inherit. One function, so
 * ingest (answer rules, handoff command) and the turn (prompt) agree.
 */
export async function settingsForChannel(db: Database, adapter: string): Promise<Settings> {
  const global = await getSettings(db);
  const bot = await botOfAdapter(db, adapter);
  if (!bot) return global;
  const agent = botAgentOf(bot);
  return { ...global, ...agent.settings, ...(agent.instructions !== null ? { agentInstructions: agent.instructions } : {}) };
}
