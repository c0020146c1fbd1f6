import type { Env } from "../env";
import { installTracing, tracing } from "./hooks";

/** Tracing is on when an OTLP endpoint is set (the standard variables) and the SDK is not disabled. */
export function tracingWanted(source: Record<string, string | undefined>): boolean {
  return (
    !!(source.OTEL_EXPORTER_OTLP_ENDPOINT || source.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
    source.OTEL_SDK_DISABLED?.toLowerCase() !== "true"
  );
}

/**
 * Starts exporting traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: loads the
 * OpenTelemetry SDK (only then) and installs the hooks. Once per process. Returns
 * what it started (for the caller's log line: lib/log.ts stands on the hooks, so
 * tracing does not log), null when it started nothing.
 */
export async function startTracing(
  e: Pick<Env, "OTEL_EXPORTER_OTLP_PROTOCOL" | "OTEL_RECORD_CONTENT">,
  source = process.env,
): Promise<{ protocol: "http/protobuf" | "http/json"; recordContent: boolean } | null> {
  if (tracing() || !tracingWanted(source)) return null;
  const { createOtelTracing } = await import("./otel");
  const started = { protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf", recordContent: e.OTEL_RECORD_CONTENT };
  installTracing(createOtelTracing(started));
  return started;
}
