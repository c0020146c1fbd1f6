import { expect, test } from "./fixtures";

test("run a background task, resume its fork from the forks page, and the next message continues it", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("Hi, I need the weekly digest later", { firstName: "Fay", userId: 9191 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Hi, I need the weekly digest later");
  await page.getByRole("link", { name: "Open in dashboard" }).click();

  // An operator runs a task in the background: the agent posts from a background fork.
  await page.getByText("Run a task in the background…").click();
  await page.getByLabel("Background task").fill("Post the weekly digest");
  await page.getByRole("button", { name: "Run in background" }).click();
  await expect(page.getByRole("status")).toContainText("Started fork");
  const post = page.getByTestId("message").filter({ hasText: "Echo: Post the weekly digest" });
  await expect(post).toBeVisible();
  await expect(post).toContainText(/fork #\d+/);

  // Resume that fork from the forks page.
  await page.getByRole("link", { name: "forks", exact: true }).click();
  const background = page.getByTestId("fork-row").filter({ hasText: "background" });
  await expect(background).toContainText("done");
  await dashboard.screenshot("forks");
  await background.getByRole("button", { name: "Resume" }).click();
  const interactive = page.getByTestId("fork-row").filter({ hasText: "interactive" });
  await expect(interactive).toContainText("active");
  const forkId = await interactive.getAttribute("data-fork-id");

  // The next user message lands in the fork, and the agent answers there.
  await dashboard.simulate("What was in the digest?", { firstName: "Fay", userId: 9191 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: What was in the digest?");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page.getByTestId("active-fork")).toHaveText(`active fork #${forkId}`);
  const question = page.getByTestId("message").filter({ hasText: "What was in the digest?" }).first();
  await expect(question).toContainText(`fork #${forkId}`);
  await dashboard.screenshot("conversation-in-fork");

  // Exit with a report: the conversation is back on its main session.
  await page.getByTestId("active-fork-banner").getByRole("button", { name: "Exit with report" }).click();
  await expect(page.getByTestId("active-fork-banner")).toHaveCount(0);
  await expect(page.getByText("main session")).toBeVisible();
  // The report says "fork", the console's word, never another name for it.
  const report = page.getByTestId("message").filter({ hasText: new RegExp(`summary of fork #${forkId}:|Fork #${forkId} ended`) });
  await expect(report).toBeVisible();
  await expect(page.getByTestId("timeline")).not.toContainText(/side thread/i);
});
