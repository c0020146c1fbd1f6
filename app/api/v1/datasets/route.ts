import { datasetCreateBody, datasetListResponse, datasetResponse } from "@/lib/api/replays/schema";
import { listDatasets } from "@/lib/api/datasets/list-datasets";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { newDataset } from "@/lib/replay/datasets";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx }) => jsonOf(datasetListResponse, await listDatasets(ctx.db)), {
  role: "agent",
  scope: "dataset",
});

export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const body = await readJson(request, datasetCreateBody, 64 * 1024);
    return jsonOf(datasetResponse, { dataset: await newDataset(ctx.replay, body, caller.operator.name) }, 201);
  },
  { role: "agent", scope: "dataset" },
);
