import { botChangeResponse, botPatchBody, botRemoveQuery, botRemoveResponse, botResponse } from "@/lib/api/bots";
import { requireAdmin } from "@/lib/auth/roles";
import { changeBot, getBotView, removeBot } from "@/lib/bots/manage";
import { withOperator } from "@/lib/http/api";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(async ({ params, ctx, caller }) => {
  requireAdmin(caller, "see the bots");
  return jsonOf(botResponse, { bot: await getBotView(ctx.db, idParam(params.id)) });
});

export const PATCH = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  requireAdmin(caller, "change bots");
  const id = idParam(params.id);
  const body = await readJson(request, botPatchBody);
  return jsonOf(botChangeResponse, await changeBot(ctx.bots, id, body, caller.operator.name));
});

export const DELETE = withOperator<{ id: string }>(async ({ request, params, ctx, caller }) => {
  requireAdmin(caller, "remove bots");
  const id = idParam(params.id);
  const query = botRemoveQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  return jsonOf(botRemoveResponse, await removeBot(ctx.bots, id, { erase: query.erase === "true" }));
});
