import type { Database } from "../../db/database";
import { findReplay } from "../../db/replays";
import { notFound } from "../../errors";
import { applyVariant } from "../../replay/apply";
import type { WorkerKick } from "../work";

/** What a replay tried becomes the settings (each change in the change log); the worker looks again at once. */
export async function applyReplay(deps: { db: Database; worker: WorkerKick }, replayId: number, by: string) {
  const replay = await findReplay(deps.db, replayId);
  if (!replay) throw notFound("replay");
  const result = await applyVariant(deps.db, replay.variant, by, [replay.conversationId]);
  deps.worker.kick();
  return result;
}
