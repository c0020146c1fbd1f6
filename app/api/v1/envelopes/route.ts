import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { envelopeListResponse, sentEnvelopeResponse } from "@/lib/api/envelopes/schema";
import { sendEnvelope } from "@/lib/api/envelopes/send-envelope";
import { listEnvelopesSchema, queryEnvelopes, sendEnvelopeSchema } from "@/lib/pipeline/envelopes";

export const dynamic = "force-dynamic";

/** Send an envelope (from, to, text, replyTo, deliverAt). */
export const POST = withOperator(
  async ({ request, ctx, caller }) => {
    const envelope = await sendEnvelope(ctx, await readJson(request, sendEnvelopeSchema), caller);
    return jsonOf(sentEnvelopeResponse, { envelope }, 201);
  },
  { role: "agent" },
);

/** List envelopes (changes nothing; an agent receives its mail with POST /envelopes/receive); an agent limited to some bots sees theirs. */
export const GET = withOperator(
  async ({ request, ctx, caller }) => {
    const query = listEnvelopesSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
    return jsonOf(envelopeListResponse, await queryEnvelopes(ctx.db, query, caller.bots));
  },
  { role: "agent" },
);
