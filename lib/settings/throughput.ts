import type { Env } from "../env";
import type { Settings } from "./schema";

export type Throughput = {
  /** Conversations answered at once. */
  turnConcurrency: number;
  /** The ceiling of model calls in flight at once per provider and model (the limit in force adapts below it). */
  modelConcurrency: number;
  /** Quiet time after a user's last message before the turn starts. */
  burstDebounceMs: number;
};

/** The limits in force: the settings page's value where an operator set one, else the server's environment. */
export function throughput(
  settings: Pick<Settings, keyof Throughput>,
  env: Pick<Env, "WORKER_CONCURRENCY" | "LLM_CONCURRENCY" | "BURST_DEBOUNCE_MS">,
): Throughput {
  return {
    turnConcurrency: settings.turnConcurrency ?? env.WORKER_CONCURRENCY,
    modelConcurrency: settings.modelConcurrency ?? env.LLM_CONCURRENCY,
    burstDebounceMs: settings.burstDebounceMs ?? env.BURST_DEBOUNCE_MS,
  };
}
