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

    // A reply to the bot's answer: the demo model says what the reply annotation showed it.
    await timeline
      .getByTestId("sim-message")
      .filter({ hasText: "[demo model" })
      .getByRole("button", { name: /^Reply to/ })
      .click();
    await page.getByLabel("Message", { exact: true }).fill("replying to the demo");
    await page.getByRole("button", { name: /^Send as/ }).click();
    await expect(timeline).toContainText("I was shown 3 messages in context.");
    // (The quoted label's brackets come back as parentheses: quoted text is sanitized, it cannot pose as a label.)
    await expect(timeline).toContainText(
      'The newest is a reply: [↩ reply to agent: "(demo model, no LLM configured) I was shown 1 message in context.',
    );

    // The same turn in the prompt inspector, from the conversation page: the demo model, through the reply tool.
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    const answer = page.getByTestId("message").filter({ hasText: "I was shown 3 messages" });
    await expect(answer.getByTestId("sender")).toHaveText("@switchboard_bot");
    await answer.getByRole("link", { name: "Prompt" }).click();
    await expect(page.getByTestId("turn-facts")).toContainText("sandbox-demo");
    await expect(page.getByTestId("prompt-message").last()).toContainText("replying to the demo");
    await expect(page.getByText(/^reply → /)).toBeVisible();

    // One set of model instructions: the settings page says exactly what the banner says.
    await page.goto("/");
    const bannerText = await page.getByTestId("no-model-banner").getByTestId("model-instructions").textContent();
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await expect(page.getByTestId("model-status")).toContainText("Demo model (sandbox, no LLM configured)");
    await expect(page.getByTestId("model-instructions")).toHaveText(bannerText!);
    await context.close();
  } finally {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  }
});
