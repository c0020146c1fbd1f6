import { forkListQuery, forkListResponse, startedTaskResponse } from "@/lib/api/forks/schema";
import { listForks } from "@/lib/api/forks/list-forks";
import { startTask } from "@/lib/api/forks/start-task";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { startTaskSchema } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = forkListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(forkListResponse, await listForks(ctx.db, params, caller.bots));
  },
  { role: "agent" },
);

/** An operator starts a background fork: "run this in the background: …". */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const input = await readJson(request, startTaskSchema);
    const started = await startTask(ctx, input, caller);
    return jsonOf(startedTaskResponse, started, 201);
  },
  { role: "agent" },
);
