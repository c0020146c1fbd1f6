import { processSingleton } from "../process-global";

/**
 * The seams tracing attaches to. Without OTEL_EXPORTER_OTLP_ENDPOINT nothing
 * installs them and every wrapper here runs its function as it is: the
 * OpenTelemetry SDK is imported only by `startTracing` (lib/tracing/start.ts).
 */
export type Attributes = Record<string, string | number | boolean>;

export type Tracing = {
  /** Runs `fn` inside a new span (a child of the current one); `fn` may add attributes when it knows its result. */
  span<T>(name: string, attributes: Attributes, fn: (set: (attributes: Attributes) => void) => Promise<T>, kind?: "server"): Promise<T>;
  /** Keeps the current span's context for work that continues later under `key` (an inbound envelope's turn). */
  remember(key: number): void;
  /**
   * Runs `fn` in a span continuing the trace remembered under `key` (else a new
   * trace), after a span covering the time the work waited since `queuedAt`.
   */
  resume<T>(key: number, queuedAt: Date | null, name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T>;
  /** Drops what `remember` kept under these keys (a burst's earlier envelopes, answered with the latest). */
  forget(keys: number[]): void;
  /** The ids for log lines, when a span is current. */
  currentIds(): { traceId: string; spanId: string } | null;
  /** The AI SDK's `telemetry` option for model calls. */
  modelTelemetry(): { isEnabled: true; recordInputs: boolean; recordOutputs: boolean };
  /** Sends what is buffered (tests, shutdown). */
  flush(): Promise<void>;
};

// One per process: the route handlers' bundles and the instrumentation's share it.
const installed = processSingleton<{ tracing: Tracing | null }>("tracing", () => ({ tracing: null }));

export function installTracing(tracing: Tracing | null) {
  installed.tracing = tracing;
}

export function tracing(): Tracing | null {
  return installed.tracing;
}

/** `fn` in a span when tracing is on. */
export function traced<T>(name: string, attributes: Attributes, fn: (set: (attributes: Attributes) => void) => Promise<T>): Promise<T> {
  const t = tracing();
  return t ? t.span(name, attributes, fn) : fn(() => {});
}

/** For generateText: undefined (no telemetry) unless tracing is on. */
export function modelTelemetry() {
  return tracing()?.modelTelemetry();
}
