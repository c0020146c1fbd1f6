import { findEnvelopeWithTurn } from "@/lib/db/envelopes";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, json } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(async ({ params, ctx }) => {
  const id = idParam(params.id);
  const envelope = await findEnvelopeWithTurn(ctx.db, id);
  if (!envelope) throw notFound("envelope");
  return json({ envelope });
});
