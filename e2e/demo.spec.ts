import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { Dashboard, expect, test } from "./fixtures";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/**
 * A second server on the same build with nothing configured (no model, no bot
 * token): the sandbox's labelled demo model answers in the simulator.
 */
test("with no model and no bot token, the demo model answers in the simulator, labelled, and the console says how to configure a real one", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const db = "data/e2e-demo.db";
  for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
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
      LOG_LEVEL: "warn",
      BURST_DEBOUNCE_MS: "300",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
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
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const dashboard = new Dashboard(page);
    await dashboard.signIn();
    await expect(page.getByTestId("no-model-banner")).toContainText("demo model");
    await expect(page.getByTestId("no-model-banner")).toContainText("LLM_BASE_URL");

    await dashboard.simulate("hello demo", { firstName: "Nia", userId: 7676 });
    const timeline = page.getByTestId("sim-timeline");
    await expect(timeline).toContainText("[demo model, no LLM configured] I was shown 1 message in context.");
    await dashboard.screenshot("demo-model");
    await page.getByRole("link", { name: "Settings" }).click();
    await expect(page.getByTestId("model-status")).toContainText("Demo model (sandbox, no LLM configured)");
    await context.close();
  } finally {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  }
});
