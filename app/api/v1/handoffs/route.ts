import { withOperator } from "@/lib/http/api";
import { json } from "@/lib/http/respond";
import { listOpenHandoffs } from "@/lib/pipeline/handoff";

export const dynamic = "force-dynamic";

/** The "Needs a human" inbox: open handoffs, longest waiting first. */
export const GET = withOperator(async ({ ctx }) => json({ handoffs: await listOpenHandoffs(ctx.db) }));
