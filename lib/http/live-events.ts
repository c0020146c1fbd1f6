import type { Caller } from "../auth/operators";
import { findLiveSessionById } from "../db/operators";
import type { App } from "../server/wiring";
import { eventStreamResponse } from "./event-stream";

/**
 * GET /api/v1/events for a caller: a place among the capped streams (429 or 503
 * past the caps), a stream that ends when its session signs out here, and, asked
 * at every heartbeat and on every `operators` event, when its session is gone elsewhere
 * (another instance, expiry) or its operator was disabled or removed.
 */
export function liveEventsResponse(ctx: Pick<App, "db" | "events" | "liveStreams">, caller: Caller, signal: AbortSignal): Response {
  const sessionId = caller.via === "session" ? caller.sessionId : undefined;
  const { end, release } = ctx.liveStreams.admit(sessionId === undefined ? "api-token" : { sessionId });
  return eventStreamResponse(ctx.events, signal, {
    end,
    onEnd: release,
    stillAuthorized: sessionId === undefined ? undefined : async () => (await findLiveSessionById(ctx.db, sessionId, new Date())) !== null,
  });
}
