import { receiveWebhook } from "@/lib/inbound/receive-webhook";
import { withErrors } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** Telegram delivers to the environment's bot here; see lib/inbound/receive-webhook.ts. */
export const POST = withErrors(async ({ request, ctx }) => receiveWebhook(ctx.inbound, "telegram", request));
