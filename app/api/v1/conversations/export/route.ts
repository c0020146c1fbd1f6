import { conversationCsvQuery } from "@/lib/api/conversations/schema";
import { exportConversationsCsv } from "@/lib/api/conversations/export-conversations-csv";
import { withOperator } from "@/lib/server/with-operator";

export const dynamic = "force-dynamic";

/** The conversation list (?view=, ?sort=, ?search=) as CSV, guarded against formula injection. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const params = conversationCsvQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const identity = ctx.telegram.identityState();
    const botUsername = identity.state === "ready" ? identity.identity.username : null;
    return new Response(await exportConversationsCsv(ctx.db, params, caller, botUsername), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="conversations-${params.view}.csv"`,
        "cache-control": "no-store",
      },
    });
  },
  { role: "agent" },
);
