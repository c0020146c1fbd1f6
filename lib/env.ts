import { getHeapStatistics } from "node:v8";
import { z } from "zod";
import { MODEL_PROVIDERS } from "./agent/providers";
import { defaultTurnConcurrency } from "./turn-memory";

/**
 * The server's environment, validated once. A bad value fails at start (and at
 * build, since next.config.mjs imports the same rules) naming the variable.
 * Secrets never leave this module except to the code that needs them.
 */
const optional = z
  .string()
  .optional()
  .transform((v) => (v === "" ? undefined : v));

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  DATABASE_URL: z
    .string()
    .default("file:./data/switchboard.db")
    .refine((v) => /^(file:|postgres(ql)?:\/\/)/.test(v), "must start with file: (SQLite) or postgres:// (PostgreSQL)"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Public base URL, used for secure cookies and webhook registration. */
  APP_URL: optional,
  /**
   * The HTTPS address platforms reach this server at, for media they fetch themselves
   * (LINE image, video and audio messages get a signed link under it). Unset: APP_URL.
   */
  PUBLIC_URL: optional.pipe(z.url().startsWith("https://", "must be an https:// address (LINE fetches media only over HTTPS)").optional()),
  /** The key of signed media links; unset: random per process (links then work only on the instance that made them). */
  MEDIA_URL_SECRET: optional.pipe(z.string().min(32, "must be at least 32 characters").optional()),
  TELEGRAM_BOT_TOKEN: optional,
  TELEGRAM_WEBHOOK_SECRET: optional,
  TELEGRAM_API_ROOT: optional.pipe(z.url().optional()),
  /** Bot username for the sandbox channel (no token, so no getMe). */
  SANDBOX_BOT_USERNAME: z.string().default("switchboard_bot"),
  /** LINE Messaging API: both set → the LINE adapter is on. */
  LINE_CHANNEL_SECRET: optional,
  LINE_CHANNEL_ACCESS_TOKEN: optional,
  LINE_API_ROOT: optional.pipe(z.url().optional()),
  /** LINE's content host (GET /v2/bot/message/{id}/content): another one for tests and proxies, like LINE_API_ROOT. */
  LINE_DATA_API_ROOT: optional.pipe(z.url().optional()).transform((v) => v ?? "https://api-data.line.me"),
  /** Seconds one media download may take before it is retried (then failed). */
  MEDIA_FETCH_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(60),
  /** "true" lets media be fetched from plain-http and private addresses (tests with servers on loopback only). */
  MEDIA_ALLOW_INSECURE_URLS: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  LLM_PROVIDER: z
    .enum(MODEL_PROVIDERS)
    .optional()
    .or(z.literal("").transform(() => undefined)),
  LLM_MODEL: optional,
  LLM_BASE_URL: optional.pipe(z.url().optional()),
  LLM_API_KEY: optional,
  /** Seconds a model call may take before it counts as failed. */
  LLM_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  /**
   * Conversations the worker runs at once (each still strictly in order); the settings page can override it.
   * Unset: as many as a quarter of the heap holds at the memory a waiting turn takes (lib/turn-memory.ts).
   */
  WORKER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(() => defaultTurnConcurrency(getHeapStatistics().heap_size_limit)),
  /** PostgreSQL: connections of the hand-written SQL pool per instance; unset = sized from WORKER_CONCURRENCY (docs/DATABASE.md). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).optional(),
  /** The ceiling of model calls in flight at once per provider and model (the limit adapts below it); the settings page can override it. */
  LLM_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** Quiet time after a user's last message before the turn starts (a burst becomes one turn); 0 = none. */
  BURST_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /** The largest attachment fetched (bytes); a larger one is recorded too_large with its size. Default 20 MB, Telegram's download limit. */
  MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(2_147_483_647)
    .default(20 * 1024 * 1024),
  /** The slowest an operator's upload may arrive (bytes per second, judged every 10 s): slower is a 408 that frees its place. 0 = no minimum. */
  MEDIA_UPLOAD_MIN_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(0)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024),
  /** Speech to text for voice notes, audio and video notes (an OpenAI-style transcription model, e.g. whisper-1); unset: the model gets kind and duration. */
  TRANSCRIPTION_MODEL: optional,
  /** The transcription API's base URL (OpenAI's /audio/transcriptions); unset: LLM_BASE_URL for openai / openai-compatible, else OpenAI's. */
  TRANSCRIPTION_BASE_URL: optional.pipe(z.url().optional()),
  /** The transcription API's key; unset: LLM_API_KEY. */
  TRANSCRIPTION_API_KEY: optional,
  /**
   * The key bot credentials are encrypted with (AES-256-GCM): 32 bytes as 64 hex
   * characters or base64. Unset on SQLite: a key file beside the database (docs/SECURITY.md).
   */
  SWITCHBOARD_SECRET_KEY: optional,
  /** During a key rotation: the key until now; the start seals every stored secret again with the new one. */
  SWITCHBOARD_SECRET_KEY_PREVIOUS: optional,
  SWITCHBOARD_API_TOKEN: optional.pipe(z.string().min(16, "must be at least 16 characters").optional()),
  ADMIN_USERNAME: z.string().default("admin"),
  ADMIN_PASSWORD: optional,
  /** The first-run setup code; unset → a random one per process, printed to the server log. */
  SETUP_CODE: optional.pipe(z.string().min(8, "must be at least 8 characters").optional()),
  /**
   * How many reverse proxies in front of the app append to X-Forwarded-For (0: none,
   * the client is the socket's peer). Read by scripts/start.mjs; here so a bad value fails at start.
   */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Live-event streams (GET /api/v1/events) one session, or the API token, may hold open at once (docs/SECURITY.md). */
  LIVE_STREAMS_PER_SESSION: z.coerce.number().int().min(1).max(1_000).default(10),
  /** Live-event streams this process serves at once, everyone's together; past it pages poll. */
  LIVE_STREAMS_TOTAL: z.coerce.number().int().min(1).max(100_000).default(200),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Bearer token for GET /metrics (Prometheus); the API token works too (docs/OPERATIONS.md). */
  METRICS_TOKEN: optional.pipe(z.string().min(16, "must be at least 16 characters").optional()),
  /** "false" records no metrics and /metrics answers 404. */
  METRICS_ENABLED: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true"),
  /** Set: traces go to this OpenTelemetry collector (OTLP over HTTP); unset: no tracing code is loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optional.pipe(z.url().optional()),
  /** The OTLP encoding: http/protobuf (the standard's default) or http/json. gRPC is not built in. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(["http/protobuf", "http/json"], { message: "http/protobuf or http/json (grpc is not supported)" })
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** "true": the model-call spans carry the prompt and the answer. Off by default: traces hold no message text. */
  OTEL_RECORD_CONTENT: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  const env = result.data;
  if (env.LLM_PROVIDER && !env.LLM_MODEL) throw new Error("Invalid environment:\n  LLM_MODEL: required when LLM_PROVIDER is set");
  if (env.LLM_PROVIDER === "openai-compatible" && !env.LLM_BASE_URL)
    throw new Error("Invalid environment:\n  LLM_BASE_URL: required for LLM_PROVIDER=openai-compatible");
  if (env.TELEGRAM_BOT_TOKEN && !env.TELEGRAM_WEBHOOK_SECRET)
    throw new Error("Invalid environment:\n  TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_BOT_TOKEN is set");
  if (env.LINE_CHANNEL_ACCESS_TOKEN && !env.LINE_CHANNEL_SECRET)
    throw new Error("Invalid environment:\n  LINE_CHANNEL_SECRET: required when LINE_CHANNEL_ACCESS_TOKEN is set");
  return env;
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** For tests that change the environment between cases. */
export function resetEnvCache() {
  cached = undefined;
}
