import { Dashboard, expect, test } from "./fixtures";
import { startSandboxServer } from "./support/sandbox-server";

/**
 * A second server on the same build with nothing configured (no model, no bot
 * token): the sandbox's labelled demo model answers in the simulator.
 */
test("with no model and no bot token, the demo model answers in the simulator, labelled, and the console says how to configure a real one", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { base, stop } = await startSandboxServer("e2e-demo");
  try {
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
    await stop();
  }
});
