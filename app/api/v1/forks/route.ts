import { forkListQuery, forkListResponse, startedTaskResponse } from "@/lib/api/forks";
import { refuseConversationOutOfScope } from "@/lib/auth/bot-scope";
import { listForks } from "@/lib/db/forks";
import { parseDeliverAt } from "@/lib/envelope/deliver-at";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { startBackgroundTask, startTaskSchema } from "@/lib/pipeline/forks";

export const dynamic = "force-dynamic";

export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = forkListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(forkListResponse, { forks: await listForks(ctx.db, { ...params, bots: caller.bots }) });
  },
  { role: "agent" },
);

/** An operator starts a background fork: "run this in the background: …". */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const input = await readJson(request, startTaskSchema);
    await refuseConversationOutOfScope(ctx.db, caller.bots, input.conversationId);
    const started = await startBackgroundTask(ctx.db, {
      conversationId: input.conversationId,
      task: input.task,
      from: `operator:${caller.operator.name}`,
      deliverAt: parseDeliverAt(input.deliverAt, new Date()),
      modelConfigured: ctx.model !== null,
    });
    ctx.worker.kick();
    return jsonOf(startedTaskResponse, started, 201);
  },
  { role: "agent" },
);
