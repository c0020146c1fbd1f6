import { replyResponse } from "@/lib/api/messages/schema";
import { withOperator } from "@/lib/server/with-operator";
import { withUploadForm } from "@/lib/http/multipart";
import { idParam, jsonOf } from "@/lib/http/respond";
import { refuseUnknownMediaTarget, sendOperatorMedia } from "@/lib/pipeline/operator-media";

export const dynamic = "force-dynamic";

/**
 * An operator's file to the chat (multipart: file, caption?, replyToMessageId?): 201 once delivered, 4xx when refused
 * (nothing stored), 502 when not delivered, 503 with Retry-After while the process already handles as many uploads as it takes.
 */
export const POST = withOperator<{ id: string }>(
  async ({ request, params, ctx, caller }) => {
    const conversationId = idParam(params.id);
    const maxBytes = ctx.env.MEDIA_MAX_BYTES;
    const deps = {
      ...ctx,
      maxBytes,
      publicUrl: ctx.env.PUBLIC_URL ?? (ctx.env.APP_URL?.startsWith("https://") ? ctx.env.APP_URL : undefined),
      mediaUrlSecret: ctx.mediaUrlSecret,
    };
    await refuseUnknownMediaTarget(ctx, conversationId);
    const sent = await withUploadForm(
      request,
      { maxFileBytes: maxBytes, slots: ctx.uploads, holder: `${caller.via}:${caller.operator.id}` },
      ({ file, fields }) => sendOperatorMedia(deps, { conversationId, operator: caller.operator.name, file, fields }),
    );
    return jsonOf(replyResponse, sent, 201);
  },
  { role: "agent", scope: "conversation" },
);
