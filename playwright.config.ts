import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/support/chromium";

const PORT = Number(process.env.E2E_PORT ?? 3900);
const LLM_PORT = Number(process.env.E2E_LLM_PORT ?? 3901);
export const E2E_ADMIN = { name: "admin", password: "e2e-password-123" };
/** Lets e2e tests post raw platform updates (forum topics, edits) through the real webhook. */
export const E2E_WEBHOOK_SECRET = "e2e-webhook-secret-0123456789";

/**
 * e2e runs the production build (the same `npm start` path) on a fresh SQLite
 * file, in the Telegram sandbox, with a fake OpenAI-compatible model on loopback.
 * Chromium is Debian's (scripts/check-chromium.mjs), never a download.
 */
export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    viewport: { width: 1280, height: 800 },
    launchOptions: chromiumLaunchOptions,
  },
  webServer: [
    {
      command: "node e2e/support/fake-llm.mjs",
      url: `http://127.0.0.1:${LLM_PORT}/`,
      env: { E2E_LLM_PORT: String(LLM_PORT) },
      reuseExistingServer: false,
    },
    {
      command: "node e2e/support/server.mjs",
      url: `http://127.0.0.1:${PORT}/api/health`,
      // The first start builds the app (about 4 minutes on 2 quiet cores, far longer on a busy machine).
      timeout: 900_000,
      reuseExistingServer: false,
      stdout: "pipe",
      env: {
        PORT: String(PORT),
        DATABASE_URL: "file:./data/e2e.db",
        ADMIN_USERNAME: E2E_ADMIN.name,
        ADMIN_PASSWORD: E2E_ADMIN.password,
        LLM_PROVIDER: "openai-compatible",
        LLM_MODEL: "fake-echo",
        LLM_BASE_URL: `http://127.0.0.1:${LLM_PORT}/v1`,
        SWITCHBOARD_API_TOKEN: "e2e-api-token-0123456789",
        TELEGRAM_BOT_TOKEN: "",
        // Bots added from the Bots page talk to the fake's Bot API (the environment's bot stays the sandbox).
        TELEGRAM_API_ROOT: `http://127.0.0.1:${LLM_PORT}`,
        TELEGRAM_WEBHOOK_SECRET: E2E_WEBHOOK_SECRET,
        NEXT_TELEMETRY_DISABLED: "1",
        LOG_LEVEL: "warn",
        // A short burst window keeps the simulated chats quick; the queue panel still shows it.
        BURST_DEBOUNCE_MS: "300",
      },
    },
  ],
});
