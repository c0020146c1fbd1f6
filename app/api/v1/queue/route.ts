import { withOperator } from "@/lib/http/api";
import { jsonOf } from "@/lib/http/respond";
import { queueResponse } from "@/lib/api/queue";
import { describeQueue } from "@/lib/server/queue";

export const dynamic = "force-dynamic";

/** Turns waiting and running, the oldest wait, limits in force, time to answer per minute (last hour). */
export const GET = withOperator(async ({ ctx }) => jsonOf(queueResponse, await describeQueue(ctx, new Date())));
