import type { SettingChangeEntry } from "../db/settings";

/**
 * What a change changes, as change-log entries: each of `keys` whose value differs
 * (compared as JSON, so an equal object is no change), from its old value to its new
 * one; a missing value reads as null. The global settings and each bot's own (its
 * instructions, model and overrides) are logged through this one rule.
 */
export function changedEntries(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  keys: readonly string[] = Object.keys(after),
): SettingChangeEntry[] {
  return keys
    .filter((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
    .map((key) => ({ key, oldValue: before[key] ?? null, newValue: after[key] ?? null }));
}
