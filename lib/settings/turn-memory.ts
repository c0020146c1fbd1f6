/**
 * Memory one turn holds while it waits for the model (its claim, context, prompt,
 * the request in flight), with room to spare: measured at about 0.2 MiB on the
 * answer-latency benchmark (docs/BENCHMARKS.md, "memory per waiting turn").
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
