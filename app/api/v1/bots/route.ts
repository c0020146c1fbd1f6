import { botCreateBody, botListQuery, botListResponse, botResponse } from "@/lib/api/bots";
import { requireAdmin } from "@/lib/auth/roles";
import { createBot, listBotViews } from "@/lib/bots/manage";
import { withOperator } from "@/lib/http/api";
import { jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ request, ctx, caller }) => {
  requireAdmin(caller, "see the bots");
  const query = botListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  return jsonOf(botListResponse, { bots: await listBotViews(ctx.db, { removed: query.removed === "true" }) });
});

export const POST = withOperator(async ({ request, ctx, caller }) => {
  requireAdmin(caller, "add bots");
  const body = await readJson(request, botCreateBody);
  return jsonOf(botResponse, { bot: await createBot(ctx.bots, body) }, 201);
});
