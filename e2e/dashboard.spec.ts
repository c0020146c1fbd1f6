import { expect, test } from "./fixtures";

test("a signed-out visitor is sent to sign in, and a wrong password is refused", async ({ page, dashboard }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("User name").fill("admin");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("wrong user name or password")).toBeVisible();
  await dashboard.screenshot("login");
});

test("sign in, simulate a user, see the message with the agent's threaded answer, reply as operator", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.screenshot("conversations-empty");
  await dashboard.simulate("Hello bot, are you there?", { firstName: "Dana", userId: 5151 });

  // The fake model echoes through the reply tool; the simulator shows the answer.
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Hello bot, are you there?");

  await page.getByRole("link", { name: "Conversations" }).click();
  const row = page.getByTestId("conversation-row").filter({ hasText: "Dana" });
  await expect(row).toBeVisible();
  await dashboard.screenshot("conversations");
  await row.click();

  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("message")).toHaveCount(2);
  const answer = timeline.getByTestId("message").nth(1);
  await expect(answer).toContainText("Echo: Hello bot, are you there?");
  await expect(answer.getByTestId("reply-arrow")).toContainText("Dana");

  // An operator's threaded reply appears at once and is then confirmed.
  await timeline
    .getByTestId("message")
    .first()
    .getByRole("button", { name: /^Reply to message/ })
    .click();
  await page.getByLabel("Message", { exact: true }).fill("An operator here, happy to help.");
  await page.getByRole("button", { name: "Send reply" }).click();
  const mine = timeline.getByTestId("message").filter({ hasText: "An operator here" });
  await expect(mine).toBeVisible();
  await expect(mine.getByTestId("reply-arrow")).toContainText("Hello bot");
  await expect(mine).not.toContainText("sending…");
  await dashboard.screenshot("conversation");
});

test("sign out, then pages and the API refuse the old session", async ({ page, dashboard, request }) => {
  await dashboard.signIn();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/settings");
  // Signed out: sent to sign in, which returns to the page asked for.
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings$/);
  const api = await page.request.get("/api/v1/conversations");
  expect(api.status()).toBe(401);
  const anonymous = await request.get("/api/v1/settings");
  expect(anonymous.status()).toBe(401);
});
