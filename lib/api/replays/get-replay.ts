import type { Database } from "../../db/database";
import { findReplay } from "../../db/replays";
import { notFound } from "../../errors";
import { replayView } from "../../replay/view";

/** One replay as the API shows it; 404 for an unknown one. */
export async function getReplay(db: Database, replayId: number) {
  const replay = await findReplay(db, replayId);
  if (!replay) throw notFound("replay");
  return replayView(replay);
}
