import { AppError } from "@/lib/errors";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";
import { withErrors } from "@/lib/server/with-operator";
import { recordIdParam } from "@/lib/record-id";

export const dynamic = "force-dynamic";

/** A LINE bot added as a record delivers here (lib/inbound/receive-webhook.ts); 404 for an unknown, disabled or removed bot. */
export const POST = withErrors<{ botId: string }>(async ({ request, params, ctx }) => {
  const id = recordIdParam.safeParse(params.botId);
  if (!id.success) throw new AppError("not_found", "no such bot");
  return receiveWebhook(ctx.inbound, "line", request, id.data);
});
