import { z } from "zod";
import { listConversations } from "@/lib/db/conversations";
import { withOperator } from "@/lib/http/api";
import { json } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

const query = z.object({ search: z.string().max(200).optional(), take: z.coerce.number().int().min(1).max(500).default(100) });

export const GET = withOperator(async ({ request, ctx }) => {
  const params = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  return json({ conversations: await listConversations(ctx.db, params) });
});
