import type { Database } from "../../db/database";
import { retryEnvelope as requeue } from "../../pipeline/retry";
import type { WorkerKick } from "../work";

/** A failed envelope goes again (a failed turn runs again, a failed send is sent again; 409 unless failed); the worker takes it at once. */
export async function retryEnvelope(deps: { db: Database; worker: WorkerKick }, envelopeId: number) {
  const result = await requeue(deps.db, envelopeId);
  deps.worker.kick();
  return result;
}
