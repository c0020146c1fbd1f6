import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";
import { queueQuery, queueResponse } from "@/lib/api/queue";
import { describeQueue } from "@/lib/server/queue";

export const dynamic = "force-dynamic";

/** Turns waiting and running, the oldest wait, limits in force, time to answer per minute (last hour); ?botId= for one bot's; a limited agent's bots only. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const { botId } = queueQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(queueResponse, await describeQueue(ctx, new Date(), { botId, bots: caller.bots }));
  },
  { role: "agent" },
);
