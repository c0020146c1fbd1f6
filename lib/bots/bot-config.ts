import { z } from "zod";
import { MODEL_PROVIDERS } from "../agent/providers";
import type { Database } from "../db/database";
import { findBotByAdapter, type BotRow } from "../db/bots";
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
