import { getEnvelopeThread } from "@/lib/api/envelopes/get-envelope-thread";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { envelopeThreadResponse } from "@/lib/api/envelopes/schema";

export const dynamic = "force-dynamic";

/** The chain from an envelope up to its root and the tree below that root, one query; a limited agent's bots only. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    return jsonOf(envelopeThreadResponse, await getEnvelopeThread(ctx.db, idParam(params.id), caller.bots));
  },
  { role: "agent", scope: "envelope" },
);
