import { getEnvelope } from "@/lib/api/envelopes/get-envelope";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { envelopeResponse } from "@/lib/api/envelopes/schema";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(envelopeResponse, { envelope: await getEnvelope(ctx.db, idParam(params.id)) });
  },
  { role: "agent", scope: "envelope" },
);
