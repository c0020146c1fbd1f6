import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

async function csrf(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === "sb_csrf")?.value ?? "";
}

/** From the simulator's chat to the prompt inspector of the turn that answered `answer`. */
async function openInspector(page: Page, answer: string) {
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").filter({ hasText: answer }).first().getByRole("link", { name: "Thread" }).click();
  await page
    .getByTestId("thread-tree")
    .getByRole("treeitem", { name: new RegExp(answer) })
    .click();
  await page.getByTestId("message-details").getByRole("link", { name: "Prompt inspector" }).click();
  await expect(page).toHaveURL(/\/turns\/\d+$/);
}

test("from the inspector, a turn replayed with another instruction shows both answers and the prompt diff", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("replaywhale hello", { firstName: "Rae", userId: 8181 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: replaywhale hello");
  await openInspector(page, "Echo: replaywhale hello");
  await expect(page.getByTestId("prompt-message").last()).toContainText("replaywhale hello");

  await page.getByRole("button", { name: "Replay…" }).click();
  const form = page.getByTestId("variant-form");
  // Prefilled with the settings in force.
  await expect(form.getByLabel("Instructions")).toHaveValue(/\S/);
  await expect(form.getByLabel("Recency window")).toHaveValue(/^\d+$/);
  await form.getByLabel("Instructions").fill("[shout] Answer loudly.");
  await form.getByRole("button", { name: "Run replay" }).click();

  const result = page.getByTestId("replay-result");
  await expect(result.getByTestId("original-side").getByTestId("answer")).toHaveText("Echo: replaywhale hello");
  await expect(result.getByTestId("replay-side").getByTestId("answer")).toHaveText("ECHO: REPLAYWHALE HELLO");
  await expect(result).toContainText("the answer changed");
  const diff = result.getByTestId("prompt-diff");
  await expect(diff.locator('[data-op="added"]').first()).toContainText("[shout] Answer loudly.");
  await expect(diff.locator('[data-op="removed"]').first()).toBeVisible();
  await expect(result.getByTestId("replay-side")).toContainText(/\d+ ms/);
  await dashboard.screenshot("replay-side-by-side");
  const turnUrl = page.url();

  // Nothing reached the chat: the simulator's timeline has no shouted answer.
  await page.goto("/simulator");
  await page.getByLabel("User id").fill("8181");
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: replaywhale hello");
  await expect(page.getByTestId("sim-timeline")).not.toContainText("ECHO: REPLAYWHALE");

  // Kept until deleted: back on the inspector, the replay is listed and can be deleted.
  await page.goto(turnUrl);
  await page.getByRole("button", { name: "Replay…" }).click();
  await page
    .getByRole("button", { name: /^#\d+ frozen|^#\d+ rebuild/ })
    .first()
    .click();
  await expect(page.getByTestId("replay-side").getByTestId("answer")).toHaveText("ECHO: REPLAYWHALE HELLO");
  await page.getByRole("button", { name: "Delete replay" }).click();
  await expect(page.getByTestId("replay-result")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^#\d+ (frozen|rebuild)/ })).toHaveCount(0);
});

test("a dataset from a conversation runs with live progress and its settings can be applied", async ({ page, dashboard }) => {
  await dashboard.signIn();
  const before = (await (await page.request.get("/api/v1/settings")).json()).settings.recencyWindow as number;
  const tried = before === 7 ? 6 : 7;
  await dashboard.simulate("datasetotter one", { firstName: "Dee", userId: 8282 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: datasetotter one");
  await dashboard.simulate("datasetotter two", { firstName: "Dee", userId: 8282 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: datasetotter two");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByRole("link", { name: "Replay its turns…" }).click();
  await expect(page).toHaveURL(/\/replays\?conversation=\d+$/);

  await page.getByLabel("Dataset name").fill("datasetotter week");
  await page.getByRole("button", { name: "Create dataset" }).click();
  const panel = page.getByTestId("dataset-panel");
  await expect(panel.getByRole("heading", { name: /datasetotter week/ })).toContainText("2 turns");
  await panel.getByLabel("Recency window").fill(String(tried));
  await panel.getByRole("button", { name: "Run dataset" }).click();
  const run = panel.getByTestId("run-view");
  await expect(run.getByTestId("run-progress")).toHaveText(/^done: 2 of 2 turns/);
  await expect(run.getByTestId("summary-changed")).toHaveText("0");
  await expect(run.getByTestId("run-results")).toContainText("Echo: datasetotter two");
  await dashboard.screenshot("dataset-run");

  try {
    await run.getByRole("button", { name: "Apply these settings" }).click();
    await expect(run.getByRole("status").filter({ hasText: "Applied" })).toHaveText(/Applied: recencyWindow/);
    const after = await (await page.request.get("/api/v1/settings")).json();
    expect(after.settings.recencyWindow).toBe(tried);
    expect(after.changes[0]).toMatchObject({ key: "recencyWindow", newValue: tried, changedBy: "admin" });
  } finally {
    // The e2e database is shared: put the setting back.
    await page.request.patch("/api/v1/settings", { data: { recencyWindow: before }, headers: { "x-csrf-token": await csrf(page) } });
  }

  page.once("dialog", (dialog) => dialog.accept());
  await panel.getByRole("button", { name: "Delete dataset" }).click();
  await expect(page.getByTestId("datasets")).not.toContainText("datasetotter week");
});
