import type { BotChange, BotRow } from "../db/bots";
import type { SettingChangeEntry } from "../db/settings";
import { botAgentOf, type BotModel } from "../settings/bot-agent";
import { changedEntries } from "../settings/change-log";

export { platformOfAdapter as platformOf } from "../envelope/address";

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
