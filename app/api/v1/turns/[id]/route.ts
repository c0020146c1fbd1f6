import { turnResponse } from "@/lib/api/turns/schema";
import { getTurn } from "@/lib/api/turns/get-turn";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The prompt inspector: exactly what the model was shown for one turn, what it did, and the turns around it. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(turnResponse, await getTurn(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "turn" },
);
