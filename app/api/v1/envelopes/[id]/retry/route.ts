import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { retriedEnvelopeResponse } from "@/lib/api/envelopes/schema";
import { retryEnvelope } from "@/lib/api/envelopes/retry-envelope";

export const dynamic = "force-dynamic";

/** Retry a failed envelope: a failed turn runs again, a failed send goes out again (409 unless failed). */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(retriedEnvelopeResponse, await retryEnvelope(ctx, idParam(params.id)));
  },
  { role: "agent", scope: "envelope" },
);
