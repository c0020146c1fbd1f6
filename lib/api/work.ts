/**
 * This instance's envelope worker, as an operation that made work sees it: `kick()` has it
 * look for work now rather than at its next tick (lib/pipeline/worker.ts). The app hands
 * its worker in; another instance finds the work on its own tick.
 */
export type WorkerKick = { kick(): void };
