import { findTurn } from "@/lib/db/turns";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf } from "@/lib/http/respond";
import { turnResponse } from "@/lib/api/turns";

export const dynamic = "force-dynamic";

/** The prompt inspector: exactly what the model was shown for one turn, and what it did. */
export const GET = withOperator<{ id: string }>(async ({ params, ctx }) => {
  const id = idParam(params.id);
  const turn = await findTurn(ctx.db, id);
  if (!turn) throw notFound("turn");
  return jsonOf(turnResponse, turn);
});
