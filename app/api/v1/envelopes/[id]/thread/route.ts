import { envelopeThread } from "@/lib/db/envelope-threads";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { envelopeThreadResponse } from "@/lib/api/envelopes";

export const dynamic = "force-dynamic";

/** The chain from an envelope up to its root and the tree below that root, one query; a limited agent's bots only. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    const id = idParam(params.id);
    const thread = await envelopeThread(ctx.db, id, caller.bots);
    if (!thread) throw notFound("envelope");
    return jsonOf(envelopeThreadResponse, thread);
  },
  { role: "agent", scope: "envelope" },
);
