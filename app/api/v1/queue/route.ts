import { withOperator } from "@/lib/http/api";
import { json } from "@/lib/http/respond";
import { describeQueue } from "@/lib/server/queue";

export const dynamic = "force-dynamic";

/** Turns waiting and running, the oldest wait, limits in force, time to answer per minute (last hour). */
export const GET = withOperator(async ({ ctx }) => json(await describeQueue(ctx, new Date())));
