import { noteBody, noteResponse, notesResponse } from "@/lib/api/conversations/schema";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf, readJson } from "@/lib/http/respond";
import { addConversationNote, conversationNotes } from "@/lib/inbox/notes";

export const dynamic = "force-dynamic";

export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => jsonOf(notesResponse, { notes: await conversationNotes(ctx.db, idParam(params.id)) }),
  { role: "agent", scope: "conversation" },
);

/** { text }: an internal note, for operators only (never sent to the chat, never in a prompt). */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const id = idParam(params.id);
    const { text } = await readJson(request, noteBody);
    return jsonOf(noteResponse, { note: await addConversationNote(ctx.db, id, caller.operator, text) }, 201);
  },
  { role: "agent", scope: "conversation" },
);
