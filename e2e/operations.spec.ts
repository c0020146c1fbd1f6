import { expect, test } from "./fixtures";

test("browse a reply tree, click a node and reply to it natively", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("Tree root message", { firstName: "Tess", userId: 6161 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Tree root message");

  // Reply in the simulator to the agent's answer, so the tree has three levels.
  await page
    .getByTestId("sim-message")
    .filter({ hasText: "Echo: Tree root message" })
    .getByRole("button", { name: /^Reply to/ })
    .click();
  await page.getByLabel("Message", { exact: true }).fill("Second level");
  await page.getByRole("button", { name: /^Send as/ }).click();
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Second level");

  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").first().getByRole("link", { name: "Thread" }).click();
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node")).toHaveCount(4);
  await dashboard.screenshot("thread-tree");

  await tree.getByRole("treeitem", { name: "Tess: Second level" }).click();
  const details = page.getByTestId("message-details");
  await expect(details).toContainText("Second level");
  await details.getByLabel("Reply to this message").fill("Operator answer in the tree");
  await details.getByRole("button", { name: "Send reply" }).click();
  await expect(details.getByRole("status")).toContainText("Sent.");
  await expect(tree.getByTestId("tree-node")).toHaveCount(5);
  await expect(tree.getByTestId("tree-node").filter({ hasText: "Operator answe" })).toBeVisible();

  // The prompt inspector for the agent's turn shows what the model saw.
  await tree.getByRole("treeitem", { name: "Tess: Second level" }).click();
  await details.getByRole("link", { name: "Prompt inspector" }).click();
  await expect(page.getByTestId("system-prompt")).toContainText("call the `reply` tool");
  await expect(page.getByTestId("prompt-message").last()).toContainText('[↩ reply to agent: "Echo: Tree root message"]');
  await dashboard.screenshot("prompt-inspector");
});

test("changing the gap threshold in settings changes the next prompt", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("Gap threshold (minutes)").fill("0");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("at least 1", { exact: true })).toBeVisible();

  // In a group the bot stays quiet until mentioned, so the pause is between the two users' messages.
  const promptAfterPause = async (groupId: number) => {
    await dashboard.simulate("before the pause", { firstName: "Gus", groupId, minutesAgo: 90 });
    await dashboard.simulate("@switchboard_bot after the pause", { firstName: "Gus", groupId });
    await expect(page.getByTestId("sim-timeline")).toContainText("Echo: @switchboard_bot after the pause");
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    await page
      .getByTestId("message")
      .filter({ hasText: /^.*after the pause/ })
      .first()
      .getByRole("link", { name: "Thread" })
      .click();
    await page.getByTestId("message-details").getByRole("link", { name: "Prompt inspector" }).click();
    return page.getByTestId("system-prompt");
  };

  // A 90-minute pause under a 2-hour threshold: no gap note.
  await page.goto("/settings");
  await page.getByLabel("Gap threshold (minutes)").fill("120");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toContainText("Saved");
  await expect(await promptAfterPause(-7171)).not.toContainText("previous message in this conversation was");

  // The same pause under a 1-hour threshold: the next prompt has the note.
  await page.goto("/settings");
  await page.getByLabel("Gap threshold (minutes)").fill("60");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toContainText("Saved");
  await expect(page.getByTestId("settings-changes")).toContainText("Gap threshold (minutes): 120 → 60");
  await dashboard.screenshot("settings");
  await expect(await promptAfterPause(-7272)).toContainText(
    "the previous message in this conversation was 1 hour 30 minutes before this one",
  );
});

test("the envelopes page lists the traffic with links to threads", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("envelope check", { firstName: "Eli", userId: 8181 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: envelope check");
  await page.getByRole("link", { name: "Envelopes" }).click();
  // The queue panel: nothing waiting now, and the answer just given shows in the time-to-answer plot.
  const queue = page.getByTestId("queue-panel");
  await expect(queue.getByTestId("queue-waiting")).toContainText("0 (0 envelopes)");
  await expect(queue.getByTestId("queue-latency")).toContainText(/last minute with answers: p50 \d/);
  await expect(queue).toContainText("Burst debounce");
  // The model-call limit adapts under its ceiling and says why it last moved.
  await expect(queue.getByTestId("queue-model-limit")).toContainText(/\d+ of \d+ \(growing/);
  await expect(queue.getByTestId("queue-model-limit-reason")).toContainText(/started at \d+|raised \d+ → \d+/);
  await page.getByLabel("Address").fill("channel:telegram:8181");
  const rows = page.getByTestId("envelope-row");
  await expect(rows).toHaveCount(2);
  await page.getByLabel("Status").selectOption("failed");
  await expect(rows).toHaveCount(0);
  await page.getByLabel("Status").selectOption("done");
  await expect(rows).toHaveCount(2);
  await dashboard.screenshot("envelopes");
  await rows.first().getByRole("link", { name: "thread" }).click();
  await expect(page.getByTestId("envelope-tree")).toContainText("Echo: envelope check");
});

test("pause the agent in one conversation, see the charts, and use the console at phone width", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("first, with the agent on", { firstName: "Pia", userId: 9393 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: first, with the agent on");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page.getByTestId("charts")).toBeVisible();
  await expect(page.getByText(/Agent latency per turn · median \d+ ms/)).toBeVisible();
  await page.getByRole("button", { name: "Agent: on" }).click();
  await expect(page.getByRole("button", { name: "Agent: paused" })).toBeVisible();

  await dashboard.simulate("second, with the agent paused", { firstName: "Pia", userId: 9393 });
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page.getByTestId("message").filter({ hasText: "second, with the agent paused" })).toBeVisible();
  await page.waitForTimeout(1_500);
  await expect(page.getByTestId("message").filter({ hasText: "Echo: second" })).toHaveCount(0);

  await page.setViewportSize({ width: 390, height: 844 });
  // On a phone the links are under the Menu button.
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("link", { name: "Conversations" }).click();
  await expect(page.getByTestId("conversation-row").filter({ hasText: "Pia" })).toContainText("paused");
  await dashboard.screenshot("phone-conversations");
});

test("an operator turns the model's pictures on and caps them per turn", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await page.goto("/settings");
  await page.getByLabel("The model sees pictures").selectOption("on");
  await page.getByLabel("Images per turn").fill("2");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toContainText("Saved");
  await expect(page.getByTestId("settings-changes")).toContainText("Images per turn: 4 → 2");
  const saved = await (await page.request.get("/api/v1/settings")).json();
  expect(saved.settings).toMatchObject({ modelSeesImages: true, maxImagesPerTurn: 2 });
  // Back to the provider's default, for the other tests of this run.
  await page.goto("/settings");
  await page.getByLabel("The model sees pictures").selectOption("provider");
  await page.getByLabel("Images per turn").fill("4");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toContainText("Saved");
  expect((await (await page.request.get("/api/v1/settings")).json()).settings).toMatchObject({
    modelSeesImages: null,
    maxImagesPerTurn: 4,
  });
});

test("a provider refusing every call shows on the queue panel until it answers again", async ({ page, dashboard }) => {
  await dashboard.signIn();
  // The fake provider refuses this message's first three calls (429, Retry-After: 2 s), then answers.
  await dashboard.simulate("[refuse] are you there", { firstName: "Rae", userId: 8383 });
  await page.getByRole("link", { name: "Envelopes" }).click();
  const queue = page.getByTestId("queue-panel");
  await expect(queue.getByTestId("queue-model-refusing")).toContainText("every call refused since");
  await expect(queue.getByTestId("queue-model")).toContainText("rate-limited until");
  await dashboard.screenshot("queue-provider-refusing");
  // The fourth call is accepted: the streak ends, the line goes, and the user has the answer.
  await expect(queue.getByTestId("queue-model-refusing")).toHaveCount(0, { timeout: 30_000 });
  await page.getByLabel("Address").fill("channel:telegram:8383");
  const rows = page.getByTestId("envelope-row");
  await expect(rows).toHaveCount(2);
  // (The prompt escapes the user's brackets, so the echo carries "\\[refuse]".)
  await expect(rows.filter({ hasText: /Echo: \\\[refuse\] are you there/ })).toHaveCount(1);
});
