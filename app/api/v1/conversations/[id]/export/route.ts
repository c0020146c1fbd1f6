import { exportQuery } from "@/lib/api/conversations/schema";
import { exportConversation } from "@/lib/api/conversations/export-conversation";
import { withOperator } from "@/lib/server/with-operator";
import { idParam } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** ?format=json (default) or text: the whole conversation as a download. */
export const GET = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const { format } = exportQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const body = await exportConversation(ctx.db, id, format);
    return new Response(body, {
      headers: {
        "content-type": format === "text" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="conversation-${id}.${format === "text" ? "txt" : "json"}"`,
        "cache-control": "no-store",
      },
    });
  },
  { role: "agent", scope: "conversation" },
);
