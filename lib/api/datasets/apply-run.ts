import type { Database } from "../../db/database";
import { findRun } from "../../db/replays";
import { notFound } from "../../errors";
import { applyVariant } from "../../replay/apply";
import type { WorkerKick } from "../work";

/**
 * What a dataset's run tried becomes the settings (each change in the change log; a key a
 * replayed conversation's bot overrides goes to that bot). The worker looks again at once:
 * limits may have grown.
 */
export async function applyRun(deps: { db: Database; worker: WorkerKick }, ids: { datasetId: number; runId: number }, by: string) {
  const run = await findRun(deps.db, ids.datasetId, ids.runId);
  if (!run) throw notFound("run");
  const replayed = await deps.db.prisma.replay.findMany({ where: { runId: run.id }, select: { conversationId: true } });
  const result = await applyVariant(
    deps.db,
    run.variant,
    by,
    replayed.map((r) => r.conversationId),
  );
  deps.worker.kick();
  return result;
}
