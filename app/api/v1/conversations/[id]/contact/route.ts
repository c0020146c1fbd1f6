import { contactResponse } from "@/lib/api/conversations/schema";
import { getContact } from "@/lib/api/conversations/get-contact";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    return jsonOf(contactResponse, await getContact(ctx.db, idParam(params.id)));
  },
  { role: "agent", scope: "conversation" },
);
