import { sessionsResponse } from "@/lib/api/operators";
import { listOwnSessions } from "@/lib/auth/account";
import { withOperator } from "@/lib/server/with-operator";
import { jsonOf } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

export const GET = withOperator(async ({ ctx, caller }) => jsonOf(sessionsResponse, { sessions: await listOwnSessions(ctx.db, caller) }), {
  role: "agent",
});
