import { operatorPatchBody, operatorResponse } from "@/lib/api/operators";
import { changeDisplayName } from "@/lib/auth/operators";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** { displayName } sets (or, null or blank, clears) what the console shows for this operator. */
export const PATCH = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  const id = idParam(params.id);
  const { displayName } = await readJson(request, operatorPatchBody, 4096);
  const operator = await changeDisplayName(ctx.db, caller, id, displayName);
  return jsonOf(operatorResponse, { operator });
});
