import type { Database } from "../../db/database";
import { listTurnReplays as listRows } from "../../db/replays";
import { findTurn } from "../../db/turns";
import { notFound } from "../../errors";
import { replayView } from "../../replay/view";

/** A turn's replays, newest first; 404 for an unknown turn. */
export async function listTurnReplays(db: Database, turnId: number) {
  if (!(await findTurn(db, turnId))) throw notFound("turn");
  return (await listRows(db, turnId)).map(replayView);
}
