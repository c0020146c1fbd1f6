import type { Database } from "../../db/database";
import type { z } from "zod";
import type { settingsUpdateSchema } from "../../settings/schema";
import { updateSettings as storeSettings } from "../../settings/store";
import type { WorkerKick } from "../work";

/**
 * A partial update of the settings (each change in the change log): it takes effect on the
 * next message on every instance, and this one's worker looks again now (limits may have grown).
 */
export async function updateSettings(deps: { db: Database; worker: WorkerKick }, update: z.infer<typeof settingsUpdateSchema>, by: string) {
  const settings = await storeSettings(deps.db, update, by);
  deps.worker.kick();
  return { settings };
}
