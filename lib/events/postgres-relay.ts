import { createHash, randomUUID } from "node:crypto";
import pg from "pg";
import { postgresTarget } from "../db/migrations.mjs";
import type { Database } from "../db/database";
import { log } from "../log";
import { eventBus, parseLiveEvent, type LiveEvent } from "./bus";

/** One channel per database schema, so instances of different deployments (and tests) never hear each other. */
function channelName(schema: string) {
  return `switchboard_events_${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`;
}

/** What a page is told after the relay missed events: every kind, no ids (refetch all). */
export const RESYNC: LiveEvent[] = [
  { type: "conversation" },
  { type: "envelope" },
  { type: "fork" },
  { type: "settings" },
  { type: "operators" },
];

export type Relay = {
  /** Settles once the first LISTEN is in place (tests wait for it before another instance publishes). */
  ready: Promise<void>;
  close(): Promise<void>;
};

/**
 * Carries this instance's events to the others on the same PostgreSQL database
 * and theirs to this one: NOTIFY on publish (through the pool), LISTEN on one
 * dedicated connection, reconnected after a failure (then local listeners get
 * RESYNC: what was sent while it was down is lost). An event's origin id keeps
 * an instance from delivering its own events twice.
 */
/**
 * How long to wait before reconnecting after `failures` failed attempts in a
 * row: doubling from `baseMs` up to `maxMs`, so a database that is down for
 * long is not asked (and the log not written) every second.
 */
export function reconnectDelay(failures: number, baseMs: number, maxMs = 30_000): number {
  return Math.min(baseMs * 2 ** Math.min(failures, 20), maxMs);
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; batches are cut well below that. */
const MAX_PAYLOAD_BYTES = 7_000;

/**
 * The events published in one turn of the event loop as NOTIFY payloads: repeats
 * dropped (events are coarse: the same one twice refetches the same thing), cut
 * into batches that fit a payload. One NOTIFY per batch, not per event: under
 * load a message's ingest, turn and send publish several events each, and a round
 * trip per event was a fifth of all the statements the server sent.
 */
export function notifyPayloads(origin: string, events: LiveEvent[]): string[] {
  const unique = [...new Set(events.map((e) => JSON.stringify(e)))];
  const head = `{"origin":${JSON.stringify(origin)},`;
  // A batch of one goes in the single-event form instances read before batching (a rolling deploy keeps its live updates).
  const payload = (batch: string[]) => (batch.length === 1 ? `${head}"event":${batch[0]}}` : `${head}"events":[${batch.join(",")}]}`);
  const payloads: string[] = [];
  let batch: string[] = [];
  let size = 0;
  for (const event of unique) {
    if (batch.length > 0 && head.length + 12 + size + event.length + 1 > MAX_PAYLOAD_BYTES) {
      payloads.push(payload(batch));
      batch = [];
      size = 0;
    }
    batch.push(event);
    size += event.length + 1;
  }
  if (batch.length > 0) payloads.push(payload(batch));
  return payloads;
}

/** The events of one NOTIFY payload not sent by `origin` (this instance); `event` is the single-event form instances sent before batching. */
export function eventsFromPayload(payload: string, origin: string): LiveEvent[] {
  try {
    const parsed = JSON.parse(payload) as { origin?: unknown; event?: unknown; events?: unknown };
    if (parsed.origin === origin) return [];
    const list = Array.isArray(parsed.events) ? parsed.events : [parsed.event];
    return list.map((e) => parseLiveEvent(JSON.stringify(e))).filter((e): e is LiveEvent => e !== null);
  } catch {
    return []; // Not ours: ignore.
  }
}

export function startPostgresRelay(db: Database, url: string, options: { reconnectMs?: number } = {}): Relay {
  const { connectionString, schema } = postgresTarget(url);
  const channel = channelName(schema);
  const origin = randomUUID();
  const bus = eventBus(db);
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  // Set once a LISTEN has been lost: events sent meanwhile never arrive here.
  let missed = false;
  let failures = 0;

  const outbox: LiveEvent[] = [];
  const flush = () => {
    for (const payload of notifyPayloads(origin, outbox.splice(0)))
      db.read(`SELECT pg_notify(?, ?)`, channel, payload).catch((error) =>
        log.warn("events.notify_failed", { error: (error as Error).message }),
      );
  };
  bus.relay = (event: LiveEvent) => {
    outbox.push(event);
    if (outbox.length === 1) setImmediate(flush);
  };

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString });
    next.on("notification", (message) => {
      if (message.channel !== channel || !message.payload) return;
      for (const event of eventsFromPayload(message.payload, origin)) bus.deliver(event);
    });
    const retry = () => {
      if (closed || client !== next) return;
      client = null;
      missed = true;
      next.end().catch(() => {});
      timer = setTimeout(() => void connect(), reconnectDelay(failures++, options.reconnectMs ?? 1_000));
      timer.unref?.();
    };
    next.on("error", (error) => {
      log.warn("events.listen_connection_failed", { error: error.message });
      retry();
    });
    next.on("end", retry);
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
      // Other instances' events no longer wait on this connection to close.
      (next as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      failures = 0;
      // Back after a gap: other instances' changes in it are lost, so local pages refetch
      // everything they show (the same coarse events, without ids, that any change sends).
      if (missed) {
        missed = false;
        log.info("events.listen_resumed", { channel });
        for (const event of RESYNC) bus.deliver(event);
      }
    } catch (error) {
      log.warn("events.listen_failed", { error: (error as Error).message });
      retry();
    }
  };
  const ready = connect();

  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      bus.relay = null;
      if (outbox.length > 0) flush();
      await ready;
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
