/**
 * Memory one turn holds while it waits for the model (its claim, context, prompt,
 * the request in flight). Measured on the answer-latency benchmark (docs/BENCHMARKS.md):
 * 1,000 chats grew the server's peak RSS by 184–236 MiB, about 0.2 MiB per chat; counted
 * against the model calls in flight at the peak only, at most 1.2 MiB each (an upper
 * bound: it includes the webhooks' own handling). The heap's quarter leaves room for that.
 */
export const TURN_MEMORY_BYTES = 512 * 1024;
/** Turns mostly wait on the model, so the default is memory-bound, and never below the old fixed 50. */
const MIN_DEFAULT_TURNS = 50;
const MAX_DEFAULT_TURNS = 1_000;

/**
 * WORKER_CONCURRENCY when unset: as many waiting turns as a quarter of the V8 heap
 * holds (1,000 from a 2 GiB heap up; Node's default heap is about a quarter of
 * the machine's memory, at most 4 GiB), so the worker is not what holds answers back.
 */
export function defaultTurnConcurrency(heapLimitBytes: number): number {
  const fits = Math.floor(heapLimitBytes / 4 / TURN_MEMORY_BYTES);
  return Math.min(MAX_DEFAULT_TURNS, Math.max(MIN_DEFAULT_TURNS, fits));
}
