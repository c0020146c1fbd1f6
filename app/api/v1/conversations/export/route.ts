import { conversationCsvQuery } from "@/lib/api/conversations";
import { listBots } from "@/lib/db/bots";
import { listConversations } from "@/lib/db/conversations";
import { listOperators } from "@/lib/db/operators";
import { withOperator } from "@/lib/server/with-operator";
import { conversationsCsv } from "@/lib/inbox/export";

export const dynamic = "force-dynamic";

/** The conversation list (?view=, ?sort=, ?search=) as CSV, guarded against formula injection. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = conversationCsvQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const [rows, operators, bots] = await Promise.all([
      listConversations(ctx.db, { ...params, me: caller.operator.id, bots: caller.bots }),
      listOperators(ctx.db),
      listBots(ctx.db, { removed: true }),
    ]);
    const identity = ctx.telegram.identityState();
    const botUsername = identity.state === "ready" ? identity.identity.username : null;
    return new Response(conversationsCsv(rows, { operators, bots, botUsername }), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="conversations-${params.view}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
  { role: "agent" },
);
