import type { Database } from "../../db/database";
import { listDatasets as listRows } from "../../db/replays";

/** The datasets, newest first (GET /datasets). */
export async function listDatasets(db: Database) {
  return { datasets: await listRows(db) };
}
