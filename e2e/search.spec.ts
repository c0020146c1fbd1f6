import { expect, test } from "./fixtures";

/** Today as a date field holds it (the browser's local day). */
const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
};

test("search finds words from their beginnings and narrows by sender, conversation and date; the filters stay in the address", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  await dashboard.simulate("My quillon parcel arrived at the depot", { firstName: "Nadia", userId: 9911 });
  await dashboard.simulate("The quillon parcel arrived broken", { firstName: "Oskar", userId: 9912, minutesAgo: 3 * 24 * 60 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: The quillon parcel arrived broken");

  await page.goto("/search");
  const form = page.getByRole("search");
  await form.getByLabel("Search message text").fill("quillon arriv");
  await form.getByRole("button", { name: "Search" }).click();
  const results = page.getByTestId("search-result");
  // Both users' messages and the agent's two echoes.
  await expect(results).toHaveCount(4);
  const nadias = results.filter({ hasText: "My quillon parcel arrived at the depot" }).filter({ hasNotText: "Echo:" });
  await expect(nadias).toContainText("Nadia");
  await expect(nadias).toContainText("(Telegram)");
  await expect(
    results
      .locator("mark")
      .filter({ hasText: /^arriv/ })
      .first(),
  ).toBeVisible();

  // Only what users wrote: a filter applies as it changes, no Search press needed.
  await form.getByRole("group", { name: "Sender" }).getByLabel("Users").check();
  await expect(page).toHaveURL(/sender=user/);
  await expect(results).toHaveCount(2);
  await expect(results.filter({ hasText: "Echo:" })).toHaveCount(0);

  // Only Oskar's conversation.
  await form.getByLabel("Conversation").selectOption({ label: "Oskar" });
  await expect(results).toHaveCount(1);
  await expect(results).toContainText("The quillon parcel arrived broken");

  // Back to every conversation, from today on: Oskar's message was three days ago.
  await form.getByLabel("Conversation").selectOption({ label: "All conversations" });
  await form.getByLabel("From", { exact: true }).fill(today());
  await expect(results).toHaveCount(1);
  await expect(results).toContainText("My quillon parcel arrived at the depot");

  // A reload keeps the search and its filters.
  await page.reload();
  await expect(results).toHaveCount(1);
  await expect(form.getByLabel("Users")).toBeChecked();
  await expect(form.getByLabel("From", { exact: true })).toHaveValue(today());
  await dashboard.screenshot("search-filters");

  // Up to today: nothing from today on and before it at once.
  await form.getByLabel("To", { exact: true }).fill(today());
  await form.getByLabel("From", { exact: true }).fill("");
  await expect(results).toHaveCount(2);

  // A word too long to search for says so.
  await form.getByLabel("Search message text").fill("あ".repeat(65));
  await form.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Search failed" })).toContainText("at most 64 characters");
});
