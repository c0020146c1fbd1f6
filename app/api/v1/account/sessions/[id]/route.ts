import { okResponse } from "@/lib/api/operators";
import { endOwnSession } from "@/lib/auth/account";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** Ends one of the caller's own sessions. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    await endOwnSession(ctx.db, caller, idParam(params.id));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "agent" },
);
