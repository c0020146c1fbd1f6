import { performance } from "node:perf_hooks";

/**
 * How busy this thread's event loop has been lately, 0 to 1 (Node's event-loop
 * utilization: the share of time spent running code rather than waiting for I/O),
 * measured again at most every `windowMs`, over the time since the last measurement.
 */
export function eventLoopBusy(windowMs = 500): () => number {
  let last = performance.eventLoopUtilization();
  let at = performance.now();
  let value = 0;
  return () => {
    const now = performance.now();
    if (now - at >= windowMs) {
      const current = performance.eventLoopUtilization();
      value = performance.eventLoopUtilization(current, last).utilization;
      last = current;
      at = now;
    }
    return value;
  };
}
