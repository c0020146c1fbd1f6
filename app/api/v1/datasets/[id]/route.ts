import { deleteDataset } from "@/lib/api/datasets/delete-dataset";
import { withOperator } from "@/lib/server/with-operator";
import { json, idParam } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return json(await deleteDataset(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "dataset" },
);
