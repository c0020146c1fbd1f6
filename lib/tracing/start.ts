import type { Env } from "../env";
import { log } from "../log";
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
 * OpenTelemetry SDK (only then) and installs the hooks. Once per process.
 */
export async function startTracing(e: Pick<Env, "OTEL_EXPORTER_OTLP_PROTOCOL" | "OTEL_RECORD_CONTENT">, source = process.env) {
  if (tracing() || !tracingWanted(source)) return;
  const { createOtelTracing } = await import("./otel");
  installTracing(createOtelTracing({ protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf", recordContent: e.OTEL_RECORD_CONTENT }));
  log.info("tracing.started", { protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf", recordContent: e.OTEL_RECORD_CONTENT });
}
