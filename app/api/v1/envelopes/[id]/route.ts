import { findEnvelopeWithTurn } from "@/lib/db/envelopes";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { envelopeResponse } from "@/lib/api/envelopes";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    const envelope = await findEnvelopeWithTurn(ctx.db, id);
    if (!envelope) throw notFound("envelope");
    return jsonOf(envelopeResponse, { envelope });
  },
  { role: "agent", scope: "envelope" },
);
