import { okResponse } from "@/lib/api/conversations/schema";
import { labelPatchBody, labelResponse } from "@/lib/api/labels";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { changeLabel, removeLabel } from "@/lib/inbox/labels";

export const dynamic = "force-dynamic";

export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const body = await readJson(request, labelPatchBody);
    return jsonOf(labelResponse, { label: await changeLabel(ctx.db, id, body) });
  },
  { role: "admin", to: "manage labels" },
);

/** The label leaves every conversation that carried it. */
export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    await removeLabel(ctx.db, idParam(params.id));
    return jsonOf(okResponse, { ok: true });
  },
  { role: "admin", to: "manage labels" },
);
