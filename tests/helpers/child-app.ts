import { spawn, type ChildProcess } from "node:child_process";
import { SECRET } from "./app";
import type { TestDb } from "./db";
import type { FakeLlm } from "./fake-llm";
import type { FakeTelegram } from "./fake-telegram";

/**
 * Starts tests/helpers/app-process.mts as `node --import tsx` (no wrapper process,
 * so SIGKILL really kills the app); resolves with its port once it listens.
 */
export function startChildApp(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/app-process.mts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      const match = /ready (\d+)/.exec(chunk.toString());
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once("exit", (code, signal) => reject(new Error(`app exited early (${code ?? signal})`)));
  });
}

/** The child app's environment: the test database, the loopback fakes, a short lease. */
export function childEnv(db: TestDb, telegram: FakeTelegram, llm: FakeLlm): Record<string, string> {
  return {
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATABASE_URL: db.url,
    TELEGRAM_BOT_TOKEN: "1:child",
    TELEGRAM_API_ROOT: telegram.url,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    LLM_PROVIDER: "openai-compatible",
    LLM_MODEL: "fake",
    LLM_BASE_URL: llm.baseUrl,
    TEST_LEASE_MS: "1500",
  };
}

/** Posts an update to the child app's webhook with the secret. */
export const postToChild = (port: number, body: unknown) =>
  fetch(`http://127.0.0.1:${port}/api/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
