/**
 * The one object this process keeps on globalThis (`__switchboard`). Next bundles lib/
 * once for the instrumentation and again per route, so a module-level value would
 * exist once per bundle; what must be one per process lives here, each under its own
 * key: the app and its shutdown (lib/server/wiring.ts; scripts/start.mjs reads `app`),
 * the metrics (lib/metrics/registry.ts) and the tracing hooks (lib/tracing/hooks.ts).
 */
const holder = globalThis as unknown as { __switchboard?: Record<string, object> };
holder.__switchboard ??= {};
const slots = holder.__switchboard;

/** This process's one value under `key`: made by `create` on the first call, the same object in every bundle after. */
export function processSingleton<T extends object>(key: string, create: () => T): T {
  slots[key] ??= create();
  return slots[key] as T;
}
