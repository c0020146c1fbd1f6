import { withOperator } from "@/lib/http/api";
import { idParam, json } from "@/lib/http/respond";
import { markRead } from "@/lib/pipeline/timeline";

export const dynamic = "force-dynamic";

/** Mark the conversation read (the dashboard does it when the timeline is shown; a GET never does). */
export const POST = withOperator<{ id: string }>(async ({ params, ctx }) => {
  await markRead(ctx.db, idParam(params.id));
  return json({ ok: true });
});
