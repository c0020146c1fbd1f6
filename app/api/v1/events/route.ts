import { findLiveSessionById } from "@/lib/db/operators";
import { withOperator } from "@/lib/http/api";
import { eventStreamResponse } from "@/lib/http/event-stream";

export const dynamic = "force-dynamic";

/**
 * Server-sent events: what changed (messages, envelopes, forks, settings, operators), for open dashboard pages.
 * A session's stream ends as soon as that session does (signed out elsewhere, disabled, removed).
 */
export const GET = withOperator(async ({ request, ctx, caller }) => {
  const { sessionId } = caller;
  const stillAllowed = sessionId === undefined ? undefined : async () => Boolean(await findLiveSessionById(ctx.db, sessionId, new Date()));
  return eventStreamResponse(ctx.events, request.signal, { stillAllowed });
});
