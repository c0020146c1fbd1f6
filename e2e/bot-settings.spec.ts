import { expect, test } from "./fixtures";

const WAITING = "Message when handed off";

/**
 * A bot's own settings are the global form's fields: empty inherits (and says what),
 * a bad value gets the global form's message, a saved one is in effect on the next
 * message and in the change log with who made it.
 */
test("the sandbox bot's own settings: a form like Settings, empty inherits, errors per field, in effect and in the change log", async ({
  page,
  dashboard,
}) => {
  // Four pages and a turn: longer than the default minute on a loaded machine.
  test.setTimeout(150_000);
  const userId = 3_700_000 + Math.floor(Math.random() * 100_000);
  const own = `Bot-own waiting note ${userId}: a person comes soon.`;
  await dashboard.signIn();
  await page.goto("/bots");
  const panel = page.getByTestId("bot-panel").filter({ hasText: "configured by the environment" }).filter({ hasText: "Telegram" });
  await panel.getByText("Agent: instructions, model and settings").click();
  const form = panel.getByTestId("bot-settings");

  // Every field starts empty and shows the global value it inherits; the help is the global form's.
  await expect(form.getByLabel(WAITING)).toHaveValue("");
  await expect(form.getByTestId("inherits-handoffWaitingMessage")).toContainText("a person from our team will reply here soon");
  await expect(form.getByTestId("inherits-recencyWindow")).toHaveText("Empty: 10");
  await expect(form.getByText("The last N messages are always in context.")).toBeVisible();
  await expect(form.getByLabel("In groups, the agent answers").locator("option:checked")).toHaveText(
    "Inherit (when mentioned, commanded or replied to)",
  );

  // A bad value: the global form's message under the field, nothing stored.
  await form.getByLabel("Recency window (messages)").fill("0");
  await panel.getByRole("button", { name: "Save agent" }).click();
  await expect(form.getByRole("alert")).toHaveText("at least 1");
  await page.reload();
  await panel.getByText("Agent: instructions, model and settings").click();
  await expect(form.getByLabel("Recency window (messages)")).toHaveValue("");

  // Its own waiting message.
  await form.getByLabel(WAITING).fill(own);
  await panel.getByRole("button", { name: "Save agent" }).click();
  await expect(panel.getByText("Saved")).toBeVisible();
  await expect(form.getByTestId("inherits-handoffWaitingMessage")).toContainText("Global value:");

  // In effect: the handoff command (no model needed) sends the bot's own message.
  await dashboard.simulate("/human", { firstName: "Otto", userId });
  await expect(page.getByTestId("sim-timeline")).toContainText(own);

  // In the change log, as this bot's and this operator's.
  await page.goto("/settings");
  const row = page.getByTestId("settings-changes").getByRole("row").filter({ hasText: own });
  await expect(row).toContainText("admin");
  await expect(row).toContainText(`${WAITING}: inherited → “${own}”`);
  await expect(row.locator(".badge")).not.toHaveText("");

  // Back to inherit (later tests see the global settings).
  await page.goto("/bots");
  await panel.getByText("Agent: instructions, model and settings").click();
  await form.getByLabel(WAITING).fill("");
  await panel.getByRole("button", { name: "Save agent" }).click();
  await expect(panel.getByText("Saved")).toBeVisible();
  await expect(form.getByTestId("inherits-handoffWaitingMessage")).toContainText("Empty:");
});
