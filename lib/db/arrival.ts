import { AsyncLocalStorage } from "node:async_hooks";

/**
 * When the work a database call is part of arrived (ms since the epoch): the user's
 * message for a turn, the request for a webhook's ingest. Under load the PostgreSQL
 * pool serves the oldest work first (lib/db/sql.ts), so work already accepted
 * finishes before newer work takes connections, instead of every turn advancing
 * one statement at a time behind hundreds of others and all answering late together.
 */
const arrival = new AsyncLocalStorage<number>();

/** Runs `fn` (and everything it awaits) as part of work that arrived at `arrivedAt`. */
export function withArrival<T>(arrivedAt: number, fn: () => T): T {
  return arrival.run(arrivedAt, fn);
}

/** The current work's arrival; work that does not say (a dashboard read, housekeeping) arrived now. */
export function currentArrival(): number {
  return arrival.getStore() ?? Date.now();
}

/** The queue's own bookkeeping (claims, lease renewals): served before any turn, or turns would stop starting and leases lapse. */
export const QUEUE_WORK = 0;
