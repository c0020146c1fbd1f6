import { type EnvelopeOutcome, finishEnvelope } from "../db/envelopes";
import { saveTurnAndEnd, type TurnRecord } from "../db/turns";
import type { Database } from "../db/database";
import { publish } from "../events/bus";

/**
 * Ends an envelope (or a burst's envelopes) done or failed (lib/db/envelopes.ts
 * `finishEnvelope`) and then, after the commit, tells open pages: every end of
 * an envelope in the pipeline goes through here, so the event is published once.
 * `conversationId` is the envelope's conversation (null: between operators or
 * agents), which every caller has already read: the event costs no read of its own.
 */
export async function endEnvelope(db: Database, id: number | number[], outcome: EnvelopeOutcome, conversationId: number | null) {
  await finishEnvelope(db, id, outcome);
  envelopeEnded(db, id, conversationId);
}

/**
 * Tells open pages an envelope ended, for a write that ended it along with others (a send's message:
 * lib/db/messages.ts `EndedSend`). The event names its conversation (null: between operators), so a
 * stream of an agent limited to some bots can leave out another bot's.
 */
export function envelopeEnded(db: Database, id: number | number[], conversationId: number | null) {
  const envelopeId = Array.isArray(id) ? id[0] : id;
  publish(db, { type: "envelope", conversationId, envelopeId });
}

/** Records a turn and ends its envelope(s) in one write (lib/db/turns.ts `saveTurnAndEnd`), then tells open pages. */
export async function endEnvelopeWithTurn(db: Database, turn: TurnRecord, id: number | number[], outcome: EnvelopeOutcome) {
  await saveTurnAndEnd(db, turn, id, outcome);
  envelopeEnded(db, id, turn.conversationId);
}
