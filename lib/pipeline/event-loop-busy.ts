import { type EventLoopUtilization, performance } from "node:perf_hooks";

/** How often the busyness is measured: each reading covers the last window. */
const WINDOW_MS = 500;

let sampler: { last: EventLoopUtilization; value: number } | undefined;

/**
 * How busy this thread's event loop was over the last half second, 0 to 1 (Node's
 * event-loop utilization: the share of time spent running code rather than waiting
 * for I/O). Measured by a timer (one per thread, started on the first reading, never
 * holding the process open), so a reading after a quiet spell is not diluted by it.
 * 0 until the first window has passed.
 */
export function eventLoopBusy(): number {
  if (!sampler) {
    const state = { last: performance.eventLoopUtilization(), value: 0 };
    sampler = state;
    setInterval(() => {
      const current = performance.eventLoopUtilization();
      state.value = performance.eventLoopUtilization(current, state.last).utilization;
      state.last = current;
    }, WINDOW_MS).unref();
  }
  return sampler.value;
}
