import type { Database } from "../../db/database";
import { deleteReplay as deleteRow } from "../../db/replays";
import { notFound } from "../../errors";

/** Removes one replay; 404 for an unknown one. */
export async function deleteReplay(db: Database, replayId: number) {
  const { count } = await deleteRow(db, replayId);
  if (!count) throw notFound("replay");
  return { ok: true as const };
}
