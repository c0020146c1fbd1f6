import type { APIRequest, APIRequestContext } from "@playwright/test";
import { Dashboard, expect, test } from "./fixtures";

/*
 * Issue 51: an operator edits and deletes what was sent, from the timeline; the
 * simulator (the user's Telegram chat) shows the edited text and loses the deleted one.
 */

const API = { authorization: "Bearer e2e-api-token-0123456789" };

/** An agent who joined with this display name (invited and accepted through the API): their sign-in. */
async function joinAgent(request: APIRequestContext, requests: APIRequest, displayName: string) {
  const invited = await request.post("/api/v1/operators", { headers: API, data: { role: "agent" } });
  expect(invited.status()).toBe(201);
  const { token } = (await invited.json()) as { token: string };
  const invitee = await requests.newContext({ baseURL: test.info().project.use.baseURL });
  const name = `editor${Date.now() % 1_000_000}`;
  const password = "editor-password-123";
  const accepted = await invitee.post("/api/auth/invitation", { data: { token, name, displayName, password } });
  expect(accepted.ok()).toBe(true);
  await invitee.dispose();
  return { name, password };
}

test("an operator fixes a price's typo and deletes another message; the chat shows the fix and loses the other", async ({
  page,
  request,
  dashboard,
  playwright,
  browser,
}) => {
  // The admin plays the user in the simulator (admins only); Ana, an agent, works the conversation.
  const ana = `Ana ${Date.now() % 1_000_000}`;
  const { name, password } = await joinAgent(request, playwright.request, ana);
  await dashboard.signIn();
  // Random ids of this spec's own range (3,692,000–3,699,999): never another spec's chat.
  const userId = 3_692_000 + Math.floor(Math.random() * 8_000);
  await dashboard.simulate("how much is the tour?", { firstName: "Quinn", userId });
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page).toHaveURL(/\/conversations\/\d+/);
  const conversationUrl = page.url();
  const anaContext = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const anaPage = await anaContext.newPage();
  await new Dashboard(anaPage).signIn(name, password);
  await anaPage.goto(conversationUrl);
  const message = (text: string) => anaPage.getByTestId("message").filter({ hasText: text });

  // Two operator messages: a price with a typo, and one meant for another chat.
  const box = anaPage.getByLabel("Message", { exact: true });
  await box.fill("The tour costs 1O0 EUR");
  await box.press("Enter");
  await expect(message("The tour costs 1O0 EUR").getByTestId("message-status")).toHaveText("sent");
  await box.fill("Wrong chat: see you at 5");
  await box.press("Enter");
  await expect(message("Wrong chat: see you at 5").getByTestId("message-status")).toHaveText("sent");

  // Edit: Escape cancels, Enter saves.
  await message("The tour costs 1O0 EUR")
    .getByRole("button", { name: /^Edit message/ })
    .click();
  const edit = anaPage.getByRole("textbox", { name: "Edit message" });
  await edit.fill("never saved");
  await edit.press("Escape");
  await expect(edit).toHaveCount(0);
  await expect(message("The tour costs 1O0 EUR")).toBeVisible();
  await message("The tour costs 1O0 EUR")
    .getByRole("button", { name: /^Edit message/ })
    .click();
  await anaPage.getByRole("textbox", { name: "Edit message" }).fill("The tour costs 100 EUR");
  await anaPage.getByRole("textbox", { name: "Edit message" }).press("Enter");
  const fixed = message("The tour costs 100 EUR");
  await expect(fixed.getByTestId("edited")).toBeVisible();
  await expect(fixed.getByTestId("earlier-text")).toContainText("The tour costs 1O0 EUR");

  // Delete, with a confirmation.
  const wrong = message("Wrong chat: see you at 5");
  await wrong.getByRole("button", { name: /^Delete message/ }).click();
  await wrong.getByRole("button", { name: "Delete from chat" }).click();
  await expect(wrong.getByTestId("deleted-by")).toHaveText(`deleted by ${ana}`);
  await expect(wrong.getByRole("button", { name: /^Edit message/ })).toHaveCount(0);
  // The user's own message offers neither.
  await expect(
    message("how much is the tour?")
      .first()
      .getByRole("button", { name: /^Edit message/ }),
  ).toHaveCount(0);

  // The user's chat: the edited text, and no trace of the deleted message.
  await page.goto("/simulator");
  await page.getByLabel("User id").fill(String(userId));
  const chat = page.getByTestId("sim-timeline");
  await expect(chat).toContainText("The tour costs 100 EUR");
  await expect(chat).not.toContainText("1O0");
  await expect(chat).not.toContainText("Wrong chat");
  await dashboard.screenshot("simulator-after-edit");

  // Reloaded, the timeline still says so.
  await anaPage.goto(conversationUrl);
  await expect(message("Wrong chat: see you at 5").getByTestId("deleted-by")).toHaveText(`deleted by ${ana}`);
  await expect(message("The tour costs 100 EUR").getByTestId("edited")).toBeVisible();
  await anaContext.close();
});
