import type { ModelHandle } from "@/lib/agent/model";
import { SECRET_HEADER } from "@/lib/channels/telegram/webhook";
import { parseEnv } from "@/lib/env";
import { createApp, type App } from "@/lib/server/wiring";
import type { TestDb } from "./db";
import type { FakeLlm } from "./fake-llm";
import type { FakeTelegram } from "./fake-telegram";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

export const SECRET = "test-webhook-secret";

export type TestAppOptions = {
  db: TestDb;
  /** A Bot API fake: the live adapter talks to it. Without it, the sandbox adapter. */
  telegram?: FakeTelegram;
  /** An OpenAI-compatible fake: the model is configured from the environment. */
  llm?: FakeLlm;
  /** Or a model handle directly (the AI SDK's mock). */
  model?: ModelHandle | null;
  /** The worker's lease (10 s unless given; null: the server's own). */
  leaseMs?: number | null;
  /** How long a provider refusing every call is waited for (an hour in production). */
  refusingForGoodMs?: number;
  /** Extra environment (e.g. the LINE adapter's). */
  env?: Record<string, string>;
  /** Media downloads: attempts, backoff, timeout (short in tests). */
  media?: {
    maxAttempts?: number;
    backoffMs?: (attempts: number) => number;
    timeoutMs?: number;
    deadline?: (timeoutMs: number) => AbortSignal;
  };
  /** Leave the model to the wiring (the sandbox demo model when nothing else is set); by default tests without one have none. */
  wiringChoosesModel?: boolean;
};

/** The application wired as the server wires it, on a test database and loopback fakes. */
export async function startTestApp(options: TestAppOptions) {
  const env = parseEnv({
    NODE_ENV: "test",
    DATABASE_URL: options.db.url,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    ...(options.telegram ? { TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN", TELEGRAM_API_ROOT: options.telegram.url } : {}),
    ...(options.llm
      ? { LLM_PROVIDER: "openai-compatible", LLM_MODEL: "fake-model", LLM_BASE_URL: options.llm.baseUrl, LLM_API_KEY: "sk-test" }
      : {}),
    LLM_TIMEOUT_SECONDS: "5",
    // Turns start at once: tests that want a burst window set it.
    BURST_DEBOUNCE_MS: "0",
    // PostgreSQL needs the key to store bot credentials (SQLite makes a key file beside the database).
    ...(options.db.provider === "postgresql" ? { SWITCHBOARD_SECRET_KEY: "7f".repeat(32) } : {}),
    ...options.env,
  });
  const app: App = await createApp(env, options.db.db, {
    ...(options.model !== undefined ? { model: options.model } : options.llm || options.wiringChoosesModel ? {} : { model: null }),
    leaseMs: options.leaseMs === null ? undefined : (options.leaseMs ?? 10_000),
    backoffMs: () => 20,
    media: options.media,
    refusingForGoodMs: options.refusingForGoodMs,
  });
  // The server fetches the bot's identity in the background; tests start once it is known.
  if (options.telegram) await app.telegram.identity();

  async function post(update: unknown, init: { secret?: string | null; contentType?: string; rawBody?: string } = {}) {
    const headers: Record<string, string> = { "content-type": init.contentType ?? "application/json" };
    if (init.secret !== null) headers[SECRET_HEADER] = init.secret ?? SECRET;
    const response = await receiveWebhook(
      app.inbound,
      "telegram",
      new Request("http://localhost/api/webhooks/telegram", { method: "POST", headers, body: init.rawBody ?? JSON.stringify(update) }),
    );
    return { status: response.status, body: await response.json().catch(() => null) };
  }

  return {
    app,
    db: options.db.db,
    post,
    /** Waits until the worker has nothing left to run. */
    settle: () => app.worker.idle(),
    stop: async () => {
      await app.worker.stop();
      await app.media.stop();
      await app.relay?.close();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
