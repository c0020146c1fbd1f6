import { deleteDataset } from "@/lib/db/replays";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { json, idParam } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const DELETE = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const { count } = await deleteDataset(ctx.db, idParam(params.id));
    if (!count) throw notFound("dataset");
    return json({ ok: true });
  },
  { role: "agent", scope: "dataset" },
);
