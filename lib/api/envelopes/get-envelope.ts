import type { Database } from "../../db/database";
import { findEnvelopeWithTurn } from "../../db/envelopes";
import { notFound } from "../../errors";

/** One envelope with its turn's id; 404 for an unknown one. */
export async function getEnvelope(db: Database, envelopeId: number) {
  const envelope = await findEnvelopeWithTurn(db, envelopeId);
  if (!envelope) throw notFound("envelope");
  return envelope;
}
