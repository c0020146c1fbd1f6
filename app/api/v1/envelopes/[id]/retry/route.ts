import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { retriedEnvelopeResponse } from "@/lib/api/envelopes";
import { retryEnvelope } from "@/lib/pipeline/retry";

export const dynamic = "force-dynamic";

/** Retry a failed envelope: a failed turn runs again, a failed send goes out again (409 unless failed). */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const result = await retryEnvelope(ctx.db, idParam(params.id));
    ctx.worker.kick();
    return jsonOf(retriedEnvelopeResponse, result);
  },
  { role: "agent", scope: "envelope" },
);
