import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";
import { forkResponse } from "@/lib/api/forks/schema";
import { resumeFork } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

/** Makes the fork the conversation's active interactive fork; 409 if another one is. */
export const POST = withOperator<{ id: string }>(
  async ({ params, ctx, caller }) => {
    const id = idParam(params.id);
    return jsonOf(forkResponse, { fork: await resumeFork(ctx.db, id, `operator:${caller.operator.name}`) });
  },
  { role: "agent", scope: "fork" },
);
