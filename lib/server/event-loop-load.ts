import { performance } from "node:perf_hooks";

export type EventLoopLoad = { utilization: () => number; stop: () => void };

/**
 * How busy this thread's event loop was over the last `windowMs` (its utilization:
 * 1 = never idle), sampled by one unref'd timer. Cheap to read on every request:
 * the webhooks' admission (lib/pipeline/webhook-admission.ts) asks it each time.
 */
export function eventLoopLoad(windowMs = 100): EventLoopLoad {
  let previous = performance.eventLoopUtilization();
  let recent = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    recent = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
  }, windowMs);
  timer.unref?.();
  return { utilization: () => recent, stop: () => clearInterval(timer) };
}

let shared: EventLoopLoad | undefined;

/** The process's one sampler (the loop is the process's, whichever app asks): started on first use. */
export function sharedEventLoopLoad(): EventLoopLoad {
  shared ??= eventLoopLoad();
  return shared;
}
