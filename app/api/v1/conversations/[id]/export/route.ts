import { exportQuery } from "@/lib/api/conversations";
import { readConversationExport } from "@/lib/db/conversation-export";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam } from "@/lib/http/respond";
import { conversationText } from "@/lib/inbox/export";

export const dynamic = "force-dynamic";

/** ?format=json (default) or text: the whole conversation as a download. */
export const GET = withOperator<{ id: string }>(
  async ({ request, params, ctx }) => {
    const id = idParam(params.id);
    const { format } = exportQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
    const data = await readConversationExport(ctx.db, id);
    if (!data) throw notFound("conversation");
    const body = format === "text" ? conversationText(data) : JSON.stringify(data, null, 2);
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
