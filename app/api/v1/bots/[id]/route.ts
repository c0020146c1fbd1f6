import { botChangeResponse, botPatchBody, botRemoveQuery, botRemoveResponse, botResponse } from "@/lib/api/bots";
import { changeBot, getBotView, removeBot } from "@/lib/bots/manage";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(botResponse, { bot: await getBotView(ctx.db, idParam(params.id)) });
  },
  { role: "admin", to: "see the bots" },
);

export const PATCH = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const body = await readJson(request, botPatchBody);
    return jsonOf(botChangeResponse, await changeBot(ctx.bots, id, body, caller.operator.name));
  },
  { role: "admin", to: "change bots" },
);

export const DELETE = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const query = botRemoveQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(botRemoveResponse, await removeBot(ctx.bots, id, { erase: query.erase === "true" }));
  },
  { role: "admin", to: "remove bots" },
);
