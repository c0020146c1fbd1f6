import type { Database } from "../../db/database";
import { deleteDataset as deleteRow } from "../../db/replays";
import { notFound } from "../../errors";

/** Removes a dataset with its runs; 404 for an unknown one. */
export async function deleteDataset(db: Database, datasetId: number) {
  const { count } = await deleteRow(db, datasetId);
  if (!count) throw notFound("dataset");
  return { ok: true as const };
}
