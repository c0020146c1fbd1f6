import { withOperator } from "@/lib/http/api";
import { eventStreamResponse } from "@/lib/http/event-stream";

export const dynamic = "force-dynamic";

/** Server-sent events: what changed (messages, envelopes, forks, settings), for open dashboard pages. */
export const GET = withOperator(async ({ request, ctx }) => eventStreamResponse(ctx.events, request.signal));
