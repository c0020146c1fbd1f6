import { json } from "@/lib/http/respond";
import { withOperator } from "@/lib/http/api";
import { describeStatus } from "@/lib/server/status";

export const dynamic = "force-dynamic";

/** What is configured: model (never the key), channel mode, database. */
export const GET = withOperator(async ({ ctx }) => json(await describeStatus(ctx)));
