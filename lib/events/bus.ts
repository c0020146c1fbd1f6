import { EventEmitter } from "node:events";
import { log } from "../log";

/**
 * What changed, coarse on purpose: the dashboard refetches what it shows, so an
 * event carries ids to narrow that refetch, never the data itself (nothing a
 * reader is not allowed to see travels on the bus or through NOTIFY).
 */
export type LiveEvent =
  | { type: "message"; conversationId: number; messageId?: number }
  | { type: "envelope"; conversationId?: number | null; envelopeId?: number }
  | { type: "fork"; conversationId?: number | null; forkId?: number }
  | { type: "settings" }
  /** An operator, invitation or session changed: open streams check that their session still lives. */
  | { type: "operators" }
  /** Something about conversations changed (membership, an unsent message, a topic name). */
  | { type: "conversation"; conversationId?: number | null };

export type LiveListener = (event: LiveEvent) => void;

/**
 * One process's event bus for one database (`eventBus(db)`). Writers publish after their commit;
 * SSE streams subscribe. A relay (PostgreSQL LISTEN/NOTIFY) may carry events to
 * and from other instances; it sees local publishes and feeds remote ones in.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  /** Set by a cross-instance relay: called for each local publish. */
  relay: ((event: LiveEvent) => void) | null = null;

  constructor() {
    // Every open dashboard page is one listener: no leak warning at 10.
    this.emitter.setMaxListeners(0);
  }

  /** A change committed here: to local listeners and, through the relay, to other instances. */
  publish(event: LiveEvent) {
    this.deliver(event);
    try {
      this.relay?.(event);
    } catch (error) {
      log.warn("events.relay_failed", { error });
    }
  }

  /** A change from another instance: local listeners only. */
  deliver(event: LiveEvent) {
    // A listener's failure (a closed stream) must never reach the writer.
    for (const listener of this.emitter.listeners("event") as LiveListener[]) {
      try {
        listener(event);
      } catch (error) {
        log.warn("events.listener_failed", { error });
      }
    }
  }

  /** Open live-event streams on this instance (one per dashboard page). */
  get subscribers(): number {
    return this.emitter.listenerCount("event");
  }

  subscribe(listener: LiveListener): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }

  listenerCount() {
    return this.emitter.listenerCount("event");
  }
}

/**
 * Where a database handle keeps its bus: a symbol from the global registry, not a
 * module-level map. The Next build bundles lib/ once for the instrumentation (the
 * worker, which publishes) and again for each route handler (the event streams,
 * which subscribe): a map would be one per copy, and pages would hear nothing. The
 * handle is the one object every copy shares.
 */
const BUS = Symbol.for("switchboard.eventBus");

/** The event bus of this database handle (made on first use; it goes with the handle): what SSE streams and the relay subscribe to. */
export function eventBus(db: object): EventBus {
  const handle = db as { [BUS]?: EventBus };
  if (!handle[BUS]) Object.defineProperty(handle, BUS, { value: new EventBus(), enumerable: false });
  return handle[BUS]!;
}

/** Shorthand for writers: publish on the bus of this database, after the commit. */
export function publish(db: object, event: LiveEvent) {
  eventBus(db).publish(event);
}

/** Parses an event from another instance; anything malformed is dropped. */
export function parseLiveEvent(text: string): LiveEvent | null {
  try {
    const value = JSON.parse(text) as Partial<LiveEvent>;
    if (
      value &&
      typeof value === "object" &&
      ["message", "envelope", "fork", "settings", "conversation", "operators"].includes(String(value.type))
    )
      return value as LiveEvent;
  } catch {
    // fall through
  }
  return null;
}
