import { finishEnvelope } from "../db/envelopes";
import { publish } from "../events/bus";

/**
 * Ends an envelope (or a burst's envelopes) done or failed (lib/db/envelopes.ts
 * `finishEnvelope`) and then, after the commit, tells open pages: every end of
 * an envelope in the pipeline goes through here, so the event is published once.
 */
export async function endEnvelope(...args: Parameters<typeof finishEnvelope>) {
  await finishEnvelope(...args);
  const [db, id] = args;
  publish(db, { type: "envelope", envelopeId: Array.isArray(id) ? id[0] : id });
}
