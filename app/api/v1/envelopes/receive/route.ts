import { withOperator } from "@/lib/server/with-operator";
import { jsonOf, readJson } from "@/lib/http/respond";
import { receivedMailResponse } from "@/lib/api/envelopes/schema";
import { receiveAgentMail, receiveMailSchema } from "@/lib/pipeline/envelopes";

export const dynamic = "force-dynamic";

/** An agent receives its due pending mail: each envelope is marked done as it is handed over (at most once). */
export const POST = withOperator(
  async ({ request, ctx, caller }) =>
    jsonOf(receivedMailResponse, await receiveAgentMail(ctx.db, await readJson(request, receiveMailSchema), caller.bots)),
  { role: "agent" },
);
