import type { EventBus, LiveEvent } from "../events/bus";

export type EventStreamOptions = {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** What the browser's EventSource waits before reconnecting. */
  retryMs?: number;
  /** Bytes a client may leave unread before it is dropped (see below). */
  maxUnreadBytes?: number;
  /** Ends the stream when it aborts, like the request's signal (a sign-out). */
  end?: AbortSignal;
  /**
   * Asked at every heartbeat and on every `operators` event: false, or a failed check, ends the stream (its
   * session expired or was revoked elsewhere, its operator disabled or removed).
   */
  stillAuthorized?: () => Promise<boolean>;
  /** Called once when the stream has ended, whatever ended it. */
  onEnd?: () => void;
  /**
   * Whether this reader may hear of an event (one naming another bot's conversation is
   * not sent to an agent limited to some bots). Absent: every event. Events keep their order.
   */
  visible?: (event: LiveEvent) => boolean | Promise<boolean>;
};

/**
 * Bytes waiting for a client that does not read (a stalled tab, a hostile
 * client holding the socket open) before the stream is ended: events are
 * coarse and the page refetches on reconnect, so dropping it loses nothing,
 * while queueing for it would grow memory with every event on the server.
 * Counted in bytes, not frames: what a slow reader costs is its bytes. (The
 * socket's own buffers take some first; those are the kernel's, and bounded.)
 */
export const MAX_UNREAD_BYTES = 64 * 1024;

/**
 * A text/event-stream Response fed by the bus: `retry:` first, then one `data:`
 * line per event (named by its type), a heartbeat comment while idle. Ends
 * cleanly when the client goes away (the request's signal): the subscription and
 * the timer are released, and nothing is written after. It also ends when
 * `options.end` aborts or `stillAuthorized` says no. A client that stops reading
 * is dropped after MAX_UNREAD_BYTES unread bytes.
 */
export function eventStreamResponse(bus: EventBus, signal: AbortSignal, options: EventStreamOptions = {}): Response {
  const encoder = new TextEncoder();
  const ended = options.end ? AbortSignal.any([signal, options.end]) : signal;
  let release = () => {};
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        const write = (text: string) => {
          if (!open) return;
          const bytes = encoder.encode(text);
          // desiredSize is minus the unread bytes (a byte-length strategy, high-water mark 0).
          if (-(controller.desiredSize ?? 0) + bytes.byteLength > (options.maxUnreadBytes ?? MAX_UNREAD_BYTES)) return drop();
          try {
            controller.enqueue(bytes);
          } catch {
            close();
          }
        };
        // Asks whether the stream may go on; a failed check (database busy) ends it too, rather than
        // letting events be judged by a limit that may have changed (the page reconnects and is asked again).
        const recheck = async () => {
          if (!options.stillAuthorized || !open) return;
          const yes = await options.stillAuthorized().catch(() => false);
          if (!yes) close();
        };
        const send = (event: LiveEvent) => write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        // Checks and visibility decisions share one ordered chain: events go out in the order they came,
        // and none that arrives after a check began is judged (or sent) before that check has ended.
        let decided = Promise.resolve();
        let pending = 0;
        const inOrder = (step: () => unknown) => {
          pending++;
          decided = decided.then(async () => {
            try {
              if (open) await step();
            } finally {
              pending--;
            }
          });
        };
        const unsubscribe = bus.subscribe((event: LiveEvent) => {
          // An operator was disabled or removed, a session ended or a limit changed: ask at once, not at the next heartbeat.
          if (event.type === "operators") inOrder(recheck);
          const visible = options.visible;
          // Nothing to decide and nothing waiting: out at once (a reader that never reads is dropped here, not queued for).
          if (!visible && pending === 0) return send(event);
          inOrder(async () => {
            try {
              if (!visible || (await visible(event))) send(event);
            } catch {
              // A failed look-up (database busy) sends nothing for that event: never another bot's id.
            }
          });
        });
        const heartbeat = setInterval(() => {
          write(`: heartbeat ${Date.now()}\n\n`);
          inOrder(recheck);
        }, options.heartbeatMs ?? 15_000);
        heartbeat.unref?.();
        const close = () => {
          if (!open) return;
          open = false;
          clearInterval(heartbeat);
          unsubscribe();
          ended.removeEventListener("abort", close);
          options.onEnd?.();
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
        ended.addEventListener("abort", close);
        if (ended.aborted) return close();
        write(`retry: ${options.retryMs ?? 3_000}\n: connected\n\n`);
      },
      cancel() {
        release();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
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
