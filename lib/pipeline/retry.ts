import type { Database } from "../db/database";
import { findEnvelope, releaseReplyKey, requeueFailedEnvelope } from "../db/envelopes";
import { parseAddress } from "../envelope/address";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";

/**
 * An operator's Retry on a failed envelope. A failed turn (agent mail) runs again
 * from scratch, and its earlier failed reply no longer blocks the answer; a failed
 * send goes out again. Either way the worker does it, with the same at-most-once
 * rules; the operator decided that a send marked "possibly delivered" should go again.
 */
export async function retryEnvelope(db: Database, id: number) {
  const envelope = await findEnvelope(db, id);
  if (!envelope) throw notFound(`envelope ${id}`);
  if (envelope.status !== "failed")
    throw new AppError("conflict", `envelope ${id} is ${envelope.status}; only a failed one can be retried`);
  // A file's bytes are not part of the envelope: the worker would resend only its caption.
  if (envelope.metadata.media)
    throw new AppError(
      "bad_request",
      `envelope ${id} carried a file (${envelope.metadata.media.fileName}); send the file again from the composer`,
    );
  const to = parseAddress(envelope.to);
  if (to.kind === "operator") throw new AppError("bad_request", "mail to an operator is not delivered by the server");
  if (to.kind === "agent") await releaseReplyKey(db, id);
  if (!(await requeueFailedEnvelope(db, id))) throw new AppError("conflict", `envelope ${id} changed meanwhile; reload`);
  publish(db, { type: "envelope", envelopeId: id, conversationId: envelope.conversationId });
  return {
    envelope: { ...envelope, status: "pending" as const, lastDeliveryError: null },
    retried: to.kind === "agent" ? ("turn" as const) : ("send" as const),
  };
}

export type RetryEnvelopeResponse = Awaited<ReturnType<typeof retryEnvelope>>;
