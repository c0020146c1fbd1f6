import { context, SpanKind, SpanStatusCode, trace, type Context } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OpenTelemetry } from "@ai-sdk/otel";
import { registerTelemetry } from "ai";
import type { Tracing } from "./hooks";

/** Contexts of ingested envelopes waiting for their turn; the oldest go first past this many. */
const MAX_REMEMBERED = 10_000;

/**
 * The OpenTelemetry side of the hooks: a tracer provider with the OTLP exporter
 * the standard variables describe (endpoint, headers, timeout are read by the
 * exporter itself), registered globally so the AI SDK's model-call spans join
 * the turn's trace. The AI SDK emits spans only through a registered integration
 * (since AI SDK 7), and then for every call: each call passes `modelTelemetry()`,
 * which says whether its prompt and answer are recorded.
 */
export function createOtelTracing(options: { protocol: "http/protobuf" | "http/json"; recordContent: boolean }): Tracing {
  const exporter = options.protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME || "switchboard" }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  registerTelemetry(new OpenTelemetry());
  const tracer = trace.getTracer("switchboard");
  const remembered = new Map<number, Context>();

  const run = async <T>(span: ReturnType<typeof tracer.startSpan>, fn: () => Promise<T>): Promise<T> => {
    try {
      return await context.with(trace.setSpan(context.active(), span), fn);
    } catch (error) {
      span.recordException({ name: (error as Error)?.name ?? "Error", message: (error as Error)?.message ?? String(error) });
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name });
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    span(name, attributes, fn, kind) {
      const span = tracer.startSpan(name, { attributes, kind: kind === "server" ? SpanKind.SERVER : SpanKind.INTERNAL });
      return run(span, () => fn((more) => span.setAttributes(more)));
    },
    remember(key) {
      if (!trace.getSpan(context.active())) return;
      if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as number);
      remembered.set(key, context.active());
    },
    resume(key, queuedAt, name, attributes, fn) {
      const parent = remembered.get(key) ?? context.active();
      remembered.delete(key);
      // The wait between ingest and the turn: the burst debounce, then the queue.
      if (queuedAt) tracer.startSpan("switchboard.queue", { startTime: queuedAt, attributes }, parent).end();
      const span = tracer.startSpan(name, { attributes }, parent);
      return run(span, fn);
    },
    forget(keys) {
      for (const key of keys) remembered.delete(key);
    },
    currentIds() {
      const span = trace.getSpan(context.active());
      if (!span) return null;
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    modelTelemetry: () => ({ isEnabled: true, recordInputs: options.recordContent, recordOutputs: options.recordContent }),
    flush: () => provider.forceFlush(),
  };
}
