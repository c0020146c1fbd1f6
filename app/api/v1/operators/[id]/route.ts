import { operatorPatchBody, operatorResponse } from "@/lib/api/operators";
import { removeOperator, updateOperator } from "@/lib/auth/team";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** { displayName?, role?, disabled?, botIds? }: a display name (own, or an admin's for anyone); role, disabled and bots for admins. */
export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const update = await readJson(request, operatorPatchBody, 4096);
    return jsonOf(operatorResponse, { operator: await updateOperator(ctx.db, caller, id, update) });
  },
  { role: "agent" },
);

/** Admins: removes the operator; their sessions end now, their history keeps their name. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => jsonOf(operatorResponse, { operator: await removeOperator(ctx.db, idParam(params.id)) }),
  { role: "admin", to: "remove operators" },
);
