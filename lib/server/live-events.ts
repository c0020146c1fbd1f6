import { type BotScope, botScopeOf, liveEventFilter } from "../auth/bot-scope";
import { asRole } from "../auth/roles";
import type { Caller } from "../auth/operators";
import { findLiveSessionById } from "../db/operators";
import type { App } from "./wiring";
import { eventStreamResponse } from "../http/event-stream";

/**
 * GET /api/v1/events for a caller: a place among the capped streams (429 or 503
 * past the caps), a stream that ends when its session signs out here, and, asked
 * at every heartbeat and on every `operators` event, when its session is gone elsewhere
 * (another instance, expiry) or its operator was disabled or removed. An agent limited to
 * some bots hears only of their bots' conversations; a change of that limit ends the stream.
 */
export function liveEventsResponse(ctx: Pick<App, "db" | "events" | "liveStreams">, caller: Caller, signal: AbortSignal): Response {
  const sessionId = caller.via === "session" ? caller.sessionId : undefined;
  const { end, release } = ctx.liveStreams.admit(sessionId === undefined ? "api-token" : { sessionId });
  return eventStreamResponse(ctx.events, signal, {
    end,
    onEnd: release,
    stillAuthorized: sessionId === undefined ? undefined : () => sessionStillHolds(ctx.db, sessionId, caller.bots),
    visible: liveEventFilter(ctx.db, caller.bots),
  });
}

/** The session still lives with the bots the stream was opened with: a changed limit ends the stream, and the page reconnects under the new one. */
async function sessionStillHolds(db: App["db"], sessionId: number, bots: BotScope | undefined) {
  const session = await findLiveSessionById(db, sessionId, new Date());
  if (!session) return false;
  const now = botScopeOf(asRole(session.operator.role), session.operator.botIds);
  return JSON.stringify(now ?? null) === JSON.stringify(bots ?? null);
}
