import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { expect } from "@playwright/test";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/**
 * A second server on the same build with nothing configured (no model, no bot token,
 * no Bot API root): what a newcomer's first start is, the sandbox's demo model
 * answering. On its own fresh SQLite file (`name`); `stop` ends it and removes the file.
 */
export async function startSandboxServer(name: string): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const db = `data/${name}.db`;
  const clean = () => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  };
  clean();
  const server = spawn(process.execPath, ["scripts/start.mjs"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      SKIP_BUILD: "1",
      DATABASE_URL: `file:./${db}`,
      ADMIN_USERNAME: "admin",
      ADMIN_PASSWORD: "e2e-password-123",
      LLM_PROVIDER: "",
      LLM_MODEL: "",
      TELEGRAM_BOT_TOKEN: "",
      TELEGRAM_API_ROOT: "",
      LOG_LEVEL: "warn",
      BURST_DEBOUNCE_MS: "300",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    clean();
  };
  try {
    await expect
      .poll(
        () =>
          fetch(`${base}/api/health`).then(
            (r) => r.ok,
            () => false,
          ),
        { timeout: 90_000 },
      )
      .toBe(true);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop };
}
