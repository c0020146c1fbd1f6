import { labelCreateBody, labelListResponse, labelResponse } from "@/lib/api/labels";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { addLabel, allLabels } from "@/lib/inbox/labels";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx }) => jsonOf(labelListResponse, { labels: await allLabels(ctx.db) }), { role: "agent" });

/** Admins define labels; operators put them on conversations (PATCH /conversations/{id}). */
export const POST = withOperator(
  async ({ request, ctx }) => {
    const body = await readJson(request, labelCreateBody);
    return jsonOf(labelResponse, { label: await addLabel(ctx.db, body) }, 201);
  },
  { role: "admin", to: "manage labels" },
);
