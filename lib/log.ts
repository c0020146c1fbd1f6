import { tracing } from "./tracing/hooks";

/**
 * A small structured logger: one JSON line per event on stderr. Keys that look
 * like secrets are redacted, so passing a whole config object is safe.
 */
type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /token|secret|password|apikey|api_key|authorization|cookie/i;

function threshold(): number {
  const level = (process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "warn" : "info")) as Level | "silent";
  return order[level] ?? order.info;
}

/** Secrets that appear inside text: Bot API URLs carry the token (`/bot123:ABC…/getMe`), its colon percent-encoded when a server echoes the URL escaped. */
export function scrub(text: string): string {
  return text.replace(/bot\d+(?::|%3A)[A-Za-z0-9_-]+/gi, "bot[redacted]");
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrub(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: scrub(value.message) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1)]));
}

function write(level: Level, event: string, fields?: Record<string, unknown>) {
  if (order[level] < threshold()) return;
  // Inside a traced span (tracing on), the line names its trace and span.
  const ids = tracing()?.currentIds();
  const line = JSON.stringify({
    time: new Date().toISOString(),
    level,
    event,
    ...(ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {}),
    ...(redact(fields ?? {}) as object),
  });
  process.stderr.write(`${line}\n`);
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write("debug", event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write("warn", event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write("error", event, fields),
};
