import { withOperator } from "@/lib/server/with-operator";
import { liveEventsResponse } from "@/lib/server/live-events";

export const dynamic = "force-dynamic";

/** Server-sent events: what changed (messages, envelopes, forks, settings, operators), for open dashboard pages. */
export const GET = withOperator(async ({ request, ctx, caller }) => liveEventsResponse(ctx, caller, request.signal), { role: "agent" });
