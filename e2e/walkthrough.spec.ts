import { expect, test } from "./fixtures";

/** What a new operator's walk-through found: each here as the operator meets it. */

test("settings explain a refused value in plain words and the change log names settings as the page does", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await page.goto("/settings");
  const perHour = page.getByLabel("Handoffs one user may start per hour");
  await perHour.fill("0");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "at least 1" }).first()).toBeVisible();
  await expect(page.getByText(/Too small|expected number/)).toHaveCount(0);
  await perHour.fill("");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "a whole number" }).first()).toBeVisible();
  await page.reload();

  // A price row with an empty price: the row, the column and what is wanted, not zod's words (nor a silent $0).
  await page.getByRole("button", { name: /Add a (row|model)/ }).click();
  const row = page.getByTestId("price-row").last();
  await row.getByLabel("Provider").fill("walkco");
  await row.getByLabel("Model").fill("walk-1");
  await row.getByLabel("Output price").fill("2");
  await page.getByRole("button", { name: "Save prices" }).click();
  const refused = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(refused).toContainText(/row \d+ \(walkco walk-1\): input price: a number of dollars per million tokens/);
  await expect(refused).not.toContainText(/Invalid input|expected number/);
  await page.reload();

  // A saved change reads as the page's label and values, never the internal key.
  const quote = page.getByLabel("Quote length (characters)");
  const before = await quote.inputValue();
  await quote.fill(String(Number(before) + 1));
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved" })).toBeVisible();
  const log = page.getByTestId("settings-changes");
  await expect(log).toContainText(`Quote length (characters): ${before} → ${Number(before) + 1}`);
  await expect(log).not.toContainText("quoteMaxChars");
  await quote.fill(before);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(log).toContainText(`Quote length (characters): ${Number(before) + 1} → ${before}`);
});

test("on a phone the role select is a finger's size; a withdrawn invitation's link is no longer shown", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/operators");
  const role = page.getByRole("form", { name: "Invite an operator" }).getByLabel("Role");
  expect((await role.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  const teamRole = page.getByRole("region", { name: "Team" }).getByRole("combobox").first();
  expect((await teamRole.boundingBox())!.height).toBeGreaterThanOrEqual(44);

  await page.getByRole("button", { name: "Create invitation link" }).click();
  await expect(page.getByLabel(/Invitation link/)).toBeVisible();
  const open = page.getByRole("region", { name: "Open invitations" });
  await open.getByRole("button", { name: "Withdraw" }).last().click();
  await expect(page.getByLabel(/Invitation link/)).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "no longer works" })).toBeVisible();
});
