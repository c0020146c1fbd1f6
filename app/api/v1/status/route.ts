import { jsonOf } from "@/lib/http/respond";
import { statusResponse } from "@/lib/api/status";
import { withOperator } from "@/lib/server/with-operator";
import { describeStatus } from "@/lib/server/status";

export const dynamic = "force-dynamic";

/** What is configured: model (never the key), channel mode, database. */
export const GET = withOperator(async ({ ctx }) => jsonOf(statusResponse, await describeStatus(ctx)), { role: "agent" });
