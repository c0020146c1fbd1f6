import { okResponse } from "@/lib/api/operators";
import { withdrawInvitation } from "@/lib/auth/invitations";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** Admins: withdraws an invitation nobody used yet; its link stops working. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    await withdrawInvitation(ctx.db, idParam(params.id));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "admin", to: "withdraw invitations" },
);
