import { turnResponse } from "@/lib/api/turns";
import { findTurn, turnBot, turnNeighbours } from "@/lib/db/turns";
import { notFound } from "@/lib/errors";
import { attachmentViewsOf } from "@/lib/media/attachment-views";
import { withOperator } from "@/lib/server/with-operator";
import { idParam, jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** The prompt inspector: exactly what the model was shown for one turn, what it did, and the turns around it. */
export const GET = withOperator<{ id: string }>(
  async ({ params, ctx }) => {
    const id = idParam(params.id);
    const turn = await findTurn(ctx.db, id);
    if (!turn) throw notFound("turn");
    const messageId = turn.envelope.messageId;
    const [neighbours, bot, attachments] = await Promise.all([
      turnNeighbours(ctx.db, turn),
      turnBot(ctx.db, turn.conversationId),
      messageId ? attachmentViewsOf(ctx.db, [messageId]).then((views) => views.get(messageId) ?? []) : [],
    ]);
    return jsonOf(turnResponse, { ...turn, ...neighbours, bot, attachments });
  },
  { role: "agent", scope: "turn" },
);
