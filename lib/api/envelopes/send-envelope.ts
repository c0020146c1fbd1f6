import type { Caller } from "../../auth/operators";
import type { Database } from "../../db/database";
import { type SendEnvelopeInput, sendEnvelope as storeEnvelope } from "../../pipeline/envelopes";
import type { WorkerKick } from "../work";

/** An operator's envelope (POST /envelopes), stored, then the worker looks for it at once. */
export async function sendEnvelope(deps: { db: Database; worker: WorkerKick }, input: SendEnvelopeInput, caller: Caller) {
  const envelope = await storeEnvelope(deps.db, input, caller);
  deps.worker.kick();
  return envelope;
}
