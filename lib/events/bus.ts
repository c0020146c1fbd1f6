import { EventEmitter } from "node:events";
import type { Database } from "../db/database";
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
  /** Something about conversations changed (membership, an unsent message, a topic name). */
  | { type: "conversation"; conversationId?: number | null };

export type LiveListener = (event: LiveEvent) => void;

/**
 * One process's event bus for one database. Writers publish after their commit;
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

  subscribe(listener: LiveListener): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }

  listenerCount() {
    return this.emitter.listenerCount("event");
  }
}

// Keyed by the database handle, like the settings cache: every writer already
// holds `db`, so no signature changes, and tests with two handles get two buses.
// Kept on globalThis (as the App is, lib/server/wiring.ts): Next bundles each route
// handler with its own copy of this module, and a route that sends (POST
// …/messages) must publish on the same bus the events route streams.
const shared = globalThis as unknown as { [key: symbol]: WeakMap<Database, EventBus> | undefined };
const KEY = Symbol.for("switchboard.eventBuses");
const buses = (shared[KEY] ??= new WeakMap<Database, EventBus>());

export function eventsOf(db: Database): EventBus {
  let bus = buses.get(db);
  if (!bus) {
    bus = new EventBus();
    buses.set(db, bus);
  }
  return bus;
}

/** Shorthand for writers: publish on the bus of this database. */
export function publish(db: Database, event: LiveEvent) {
  eventsOf(db).publish(event);
}

/** Parses an event from another instance; anything malformed is dropped. */
export function parseLiveEvent(text: string): LiveEvent | null {
  try {
    const value = JSON.parse(text) as Partial<LiveEvent>;
    if (value && typeof value === "object" && ["message", "envelope", "fork", "settings", "conversation"].includes(String(value.type))) return value as LiveEvent;
  } catch {
    // fall through
  }
  return null;
}
