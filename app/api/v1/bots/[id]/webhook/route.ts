import { botWebhookBody, botWebhookResponse } from "@/lib/api/bots";
import { registerWebhook } from "@/lib/bots/manage";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const { publicUrl } = await readJson(request, botWebhookBody);
    return jsonOf(botWebhookResponse, await registerWebhook(ctx.bots, id, publicUrl));
  },
  { role: "admin", to: "register webhooks" },
);
