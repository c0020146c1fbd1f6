import { contactResponse } from "@/lib/api/conversations";
import { readContact } from "@/lib/db/contact";
import { listNotes } from "@/lib/db/notes";
import { notFound } from "@/lib/errors";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    const contact = await readContact(ctx.db, id);
    if (contact === undefined) throw notFound("conversation");
    return jsonOf(contactResponse, { contact, notes: await listNotes(ctx.db, id) });
  },
  { role: "agent", scope: "conversation" },
);
