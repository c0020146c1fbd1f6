import { botCreateBody, botListQuery, botListResponse, botResponse } from "@/lib/api/bots";
import { createBot, listBotViews } from "@/lib/bots/manage";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(
  async ({ request, ctx }) => {
    const query = botListQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(botListResponse, { bots: await listBotViews(ctx.db, { removed: query.removed === "true" }) });
  },
  { role: "admin", to: "see the bots" },
);

export const POST = withOperator(
  async ({ request, ctx }) => {
    const body = await readJson(request, botCreateBody);
    return jsonOf(botResponse, { bot: await createBot(ctx.bots, body) }, 201);
  },
  { role: "admin", to: "add bots" },
);
