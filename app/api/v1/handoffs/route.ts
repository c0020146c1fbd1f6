import { handoffListResponse } from "@/lib/api/conversations/schema";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";
import { listOpenHandoffs } from "@/lib/pipeline/handoff";

export const dynamic = "force-dynamic";

/** The "Needs a human" inbox: open handoffs, longest waiting first. */
export const GET = withOperator(
  async ({ ctx, caller }) => jsonOf(handoffListResponse, { handoffs: await listOpenHandoffs(ctx.db, caller.bots) }),
  { role: "agent" },
);
