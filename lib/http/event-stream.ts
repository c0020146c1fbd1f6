import type { EventBus, LiveEvent } from "../events/bus";

export type EventStreamOptions = {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** What the browser's EventSource waits before reconnecting. */
  retryMs?: number;
  /** Frames a client may leave unread before it is dropped (see below). */
  maxQueued?: number;
  /**
   * Asked again on every `operators` event (a session ended, an operator was
   * disabled or removed): false ends the stream, so a signed-out operator stops
   * hearing of changes at once, not at their next request.
   */
  stillAllowed?: () => Promise<boolean>;
};

/**
 * Frames waiting for a client that does not read (a stalled tab, a hostile
 * client holding the socket open) before the stream is ended: events are
 * coarse and the page refetches on reconnect, so dropping it loses nothing,
 * while queueing for it would grow memory with every event on the server.
 */
const MAX_QUEUED = 256;

/**
 * A text/event-stream Response fed by the bus: `retry:` first, then one `data:`
 * line per event (named by its type), a heartbeat comment while idle. Ends
 * cleanly when the client goes away (the request's signal): the subscription and
 * the timer are released, and nothing is written after. A client that stops
 * reading is dropped after MAX_QUEUED unread frames.
 */
export function eventStreamResponse(bus: EventBus, signal: AbortSignal, options: EventStreamOptions = {}): Response {
  const encoder = new TextEncoder();
  let release = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        // desiredSize counts down one per unread frame (a count strategy of 1).
        if ((controller.desiredSize ?? 0) <= -(options.maxQueued ?? MAX_QUEUED)) return drop();
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const recheck = () =>
        options.stillAllowed?.().then(
          (allowed) => allowed || close(),
          () => close(),
        );
      const unsubscribe = bus.subscribe((event: LiveEvent) => {
        if (event.type === "operators") void recheck();
        write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const heartbeat = setInterval(() => write(`: heartbeat ${Date.now()}\n\n`), options.heartbeatMs ?? 15_000);
      heartbeat.unref?.();
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        unsubscribe();
        signal.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          // Already closed by the reader.
        }
      };
      // Ends with an error, which discards the queue at once (close() would keep it for the reader).
      const drop = () => {
        if (!open) return;
        close();
        try {
          controller.error(new Error("event stream client too slow: dropped"));
        } catch {
          // Already errored.
        }
      };
      release = close;
      signal.addEventListener("abort", close);
      if (signal.aborted) return close();
      write(`retry: ${options.retryMs ?? 3_000}\n: connected\n\n`);
    },
    cancel() {
      release();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      connection: "keep-alive",
      // Proxies (nginx) would buffer the stream otherwise.
      "x-accel-buffering": "no",
    },
  });
}
