import { expect, test } from "./fixtures";

/*
 * Small console defects left from issue 53: each test here failed before its fix.
 * Layout is asserted as measured geometry, not as pixels.
 */

test("a dataset run's heading agrees with its counts: a run with the settings as they are does not say 'no changes'", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  await dashboard.simulate("headingotter one", { firstName: "Hed", userId: 54_101 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: headingotter one");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByRole("link", { name: "Replay its turns…" }).click();
  await page.getByLabel("Dataset name").fill("headingotter set");
  await page.getByRole("button", { name: "Create dataset" }).click();
  const panel = page.getByTestId("dataset-panel");
  await panel.getByRole("button", { name: "Run dataset" }).click();
  const run = panel.getByTestId("run-view");
  await expect(run.getByTestId("run-progress")).toHaveText(/^done: 1 of 1 turns/);
  const heading = run.getByRole("heading", { level: 3 });
  await expect(heading).toContainText("settings unchanged");
  await expect(heading).not.toContainText(/no changes?/);
  page.once("dialog", (dialog) => dialog.accept());
  await panel.getByRole("button", { name: "Delete dataset" }).click();
  await expect(page.getByTestId("datasets")).not.toContainText("headingotter set");
});

