import type { Database } from "../db/database";
import type { Settings } from "../settings/schema";
import { updateSettings } from "../settings/store";

/**
 * "Apply these settings": what a replay or run tried becomes the live settings, through
 * the settings store (validated, with its change-log entry). The variant's instructions
 * are the agent's instructions; a model cannot be applied here (the server's model is
 * its environment's), so it is reported as not applied.
 */
export async function applyVariant(
  db: Database,
  variant: unknown,
  changedBy: string,
): Promise<{ settings: Settings; applied: string[]; notApplied: string[] }> {
  const v = (variant ?? {}) as { instructions?: string; settings?: Record<string, unknown>; model?: unknown };
  const update: Record<string, unknown> = { ...(v.settings ?? {}) };
  if (typeof v.instructions === "string") update.agentInstructions = v.instructions;
  const settings = await updateSettings(db, update, changedBy);
  return { settings, applied: Object.keys(update), notApplied: v.model ? ["model"] : [] };
}
