import type { ChannelAdapter } from "../channels/types";
import { tracing } from "./hooks";

/**
 * The spans of one inbound message, at the seams of the wiring: webhook →
 * ingest → (queue: the debounce and the wait) → turn → model calls (the AI
 * SDK's own spans) → send. Each wrapper is a pass-through while tracing is off.
 * Spans carry ids and outcomes, never message text.
 */

export function traceWebhook(channel: string, handler: (request: Request) => Promise<Response>) {
  return (request: Request): Promise<Response> => {
    const t = tracing();
    if (!t) return handler(request);
    return t.span(
      "switchboard.webhook",
      { "switchboard.channel": channel, "http.request.method": request.method },
      async (set) => {
        const response = await handler(request);
        set({ "http.response.status_code": response.status });
        return response;
      },
      "server",
    );
  };
}

/** Ingest in its span; a stored message's envelope keeps the trace for its turn. */
export function traceIngest<R extends { status: string; envelopeId?: number }>(channel: string, ingest: () => Promise<R>): Promise<R> {
  const t = tracing();
  if (!t) return ingest();
  return t.span("switchboard.ingest", { "switchboard.channel": channel }, async (set) => {
    const result = await ingest();
    set({ "switchboard.ingest.result": result.status });
    if (result.envelopeId !== undefined) {
      set({ "switchboard.envelope.id": result.envelopeId });
      t.remember(result.envelopeId);
    }
    return result;
  });
}

type Claimed = { conversationId: number | null; envelopes: { id: number; to: string; createdAt: Date }[] };

/** The worker's `run`, each claimed turn in a span continuing its latest message's trace. */
export function traceTurns<C extends Claimed, T>(run: (turn: C) => Promise<T>) {
  return (turn: C): Promise<T> => {
    const t = tracing();
    const latest = turn.envelopes.at(-1);
    if (!t || !latest) return run(turn);
    t.forget(turn.envelopes.slice(0, -1).map((e) => e.id));
    const attributes = {
      "switchboard.envelope.id": latest.id,
      "switchboard.envelope.to": latest.to.split(":")[0] ?? "",
      "switchboard.turn.envelopes": turn.envelopes.length,
      ...(turn.conversationId !== null ? { "switchboard.conversation.id": turn.conversationId } : {}),
    };
    return t.resume(latest.id, turn.envelopes[0]?.createdAt ?? null, "switchboard.turn", attributes, () => run(turn));
  };
}

/** The adapter with each send in a span (the channel, and whether the platform took it). */
export function traceChannel<C extends ChannelAdapter>(adapter: C): C {
  const send = adapter.send.bind(adapter);
  adapter.send = (request) => {
    const t = tracing();
    if (!t) return send(request);
    return t.span("switchboard.send", { "switchboard.channel": adapter.name }, async (set) => {
      const result = await send(request);
      set({ "switchboard.send.outcome": "sent" });
      return result;
    });
  };
  return adapter;
}
