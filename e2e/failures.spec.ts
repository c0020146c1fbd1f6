import { expect, test } from "./fixtures";

test("a refused send shows on the conversation with its reason, and Retry delivers it", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.nextSendFails("refused");
  await dashboard.simulate("please answer", { firstName: "Fay", userId: 9494 });
  await page.getByRole("link", { name: "Open in dashboard" }).click();

  const failure = page.getByTestId("message").filter({ hasText: "please answer" }).getByTestId("delivery-failure");
  await expect(failure).toContainText(
    "reply not delivered: Telegram 400: Bad Request: not enough rights to send text messages to the chat",
  );
  await dashboard.screenshot("failed-send");
  await failure.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByTestId("timeline")).toContainText("Echo: please answer");
  await expect(page.getByTestId("delivery-failure")).toHaveCount(0);
});

test("a send with an unknown outcome stays in the timeline marked possibly delivered, also in the thread view", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  await dashboard.nextSendFails("timeout");
  await dashboard.simulate("are you there", { firstName: "Gil", userId: 9595 });
  await page.getByRole("link", { name: "Open in dashboard" }).click();

  const agent = page.getByTestId("message").filter({ hasText: "Echo: are you there" });
  await expect(agent.getByTestId("delivery-failure")).toContainText("possibly delivered");
  await agent.getByRole("link", { name: "Thread" }).click();
  await page
    .getByTestId("thread-tree")
    .getByRole("treeitem", { name: /Echo: are you there/ })
    .click();
  await expect(page.getByTestId("message-details").getByTestId("delivery-failure")).toContainText("timeout");
  await expect(page.getByTestId("message-details").getByRole("button", { name: "Retry" })).toBeVisible();
  // Retry sends it again and confirms the kept message: one copy in the timeline, no failure left.
  await page.getByTestId("message-details").getByRole("button", { name: "Retry" }).click();
  await expect(page.getByTestId("message-details").getByTestId("delivery-failure")).toHaveCount(0, { timeout: 15_000 });
  await page.getByTestId("message-details").getByRole("link", { name: "Open in timeline" }).click();
  await expect(page.getByTestId("message").filter({ hasText: "Echo: are you there" })).toHaveCount(1);
  await expect(page.getByTestId("delivery-failure")).toHaveCount(0);
});

test("a malformed tool call from the model shows on the conversation as the turn's error", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("[malformed] tell me", { firstName: "Hal", userId: 9696 });
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  const failure = page.getByTestId("message").filter({ hasText: "[malformed] tell me" }).getByTestId("delivery-failure");
  await expect(failure).toContainText("malformed tool call (reply)");
  await expect(failure.getByRole("button", { name: "Retry" })).toBeVisible();
  await dashboard.screenshot("malformed-tool-call");
  // The prompt inspector shows the same error on the turn.
  await page.getByTestId("message").filter({ hasText: "[malformed] tell me" }).getByRole("link", { name: "Thread" }).click();
  await page.getByTestId("message-details").getByRole("link", { name: "Prompt inspector" }).click();
  await expect(page.getByText(/malformed tool call \(reply\)/).first()).toBeVisible();
});
