import { expect, test } from "./fixtures";

test("an operator takes a conversation from Unassigned, answers with a saved reply, adds a note, resolves it and finds it under Resolved", async ({
  page,
  dashboard,
}) => {
  const userId = 3_500_000 + Math.floor(Math.random() * 100_000);
  const shortcut = `eta${userId}`;
  await dashboard.signIn();

  // A team saved reply with the user's first name in it.
  await page.getByRole("link", { name: "Saved replies" }).click();
  const form = page.getByTestId("saved-reply-new");
  await form.getByLabel("Shortcut").fill(shortcut);
  await form.getByLabel("Text").fill("Hi {{first_name}}, your parcel arrives tomorrow before noon.");
  await form.getByRole("button", { name: "Save reply" }).click();
  await expect(page.getByTestId("saved-reply-row").filter({ hasText: `/${shortcut}` })).toBeVisible();

  await dashboard.simulate("where is my parcel?", { firstName: "Mara", userId });
  await page.getByRole("link", { name: "Conversations" }).click();
  await page.getByTestId("inbox-view-unassigned").click();
  const row = page.getByTestId("conversation-row").filter({ hasText: "Mara" });
  await expect(row).toContainText("open");
  await row.click();

  // Take it.
  const controls = page.getByTestId("inbox-controls");
  await controls.getByRole("button", { name: "Assign to me" }).click();
  await expect(controls.getByLabel("Assignee")).toHaveValue(/\d+/);
  await expect(controls.getByRole("button", { name: "Assign to me" })).toHaveCount(0);
  await expect(page.getByTestId("contact-name")).toHaveText("Mara");

  // Answer with the saved reply: "/" and the shortcut, Enter picks it (filled for Mara), Enter sends.
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(`/${shortcut.slice(0, 5)}`);
  const menu = page.getByTestId("saved-reply-menu");
  await expect(menu).toContainText("Hi Mara, your parcel arrives tomorrow");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowUp");
  await page.getByRole("option", { name: new RegExp(`/${shortcut}`) }).click();
  await expect(box).toHaveValue("Hi Mara, your parcel arrives tomorrow before noon.");
  await box.press("Enter");
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("message").filter({ hasText: "Hi Mara, your parcel arrives tomorrow" })).toBeVisible();

  // A note for the team: in the timeline, styled apart, and in the contact panel.
  await page.getByLabel("Note for the team").check();
  await page.getByLabel("Internal note", { exact: true }).fill("Courier confirmed by phone.");
  await page.getByRole("button", { name: "Add note" }).click();
  await expect(timeline.getByTestId("note").filter({ hasText: "Courier confirmed by phone." })).toBeVisible();
  await expect(page.getByTestId("contact-notes")).toContainText("Courier confirmed by phone.");
  await dashboard.screenshot("inbox-conversation");

  await controls.getByRole("button", { name: "Resolve" }).click();
  await expect(controls.getByTestId("inbox-status")).toHaveText("resolved");

  await page.getByRole("link", { name: "Conversations" }).click();
  await page.getByTestId("inbox-view-unassigned").click();
  await expect(page.getByTestId("conversation-row").filter({ hasText: "Mara" })).toHaveCount(0);
  await page.getByTestId("inbox-view-resolved").click();
  await expect(page.getByTestId("conversation-row").filter({ hasText: "Mara" })).toBeVisible();
  await expect(page.getByTestId("inbox-view-resolved")).toContainText(/Resolved \d+/);
  await dashboard.screenshot("inbox-resolved");

  // The user writes again: it is open again.
  await dashboard.simulate("one more question", { firstName: "Mara", userId });
  await page.getByRole("link", { name: "Conversations" }).click();
  await page.getByTestId("inbox-view-open").click();
  await expect(page.getByTestId("conversation-row").filter({ hasText: "Mara" })).toBeVisible();
});

test("keyboard shortcuts move between conversations, never while typing, and ? lists them", async ({ page, dashboard }) => {
  const base = 3_600_000 + Math.floor(Math.random() * 30_000) * 3;
  await dashboard.signIn();
  for (const [i, name] of ["Kira", "Lev", "Noor"].entries()) {
    await dashboard.simulate(`hello from ${name}`, { firstName: name, userId: base + i });
    // Answered: no later activity reorders the list under the keys.
    await expect(page.getByTestId("sim-timeline")).toContainText(`Echo: hello from ${name}`);
  }
  await page.getByRole("link", { name: "Conversations" }).click();
  await page.getByTestId("inbox-view-all").click();
  const rows = page.locator("tr[data-conversation-id]");
  await expect(rows.first()).toContainText("Noor");
  const ids = await rows.evaluateAll((trs) => trs.slice(0, 3).map((tr) => tr.getAttribute("data-conversation-id")));

  // In the list: j moves down, Enter opens.
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/conversations/${ids[1]}$`));

  // In a conversation: j is the next one of the view, k the previous.
  await expect(page.getByTestId("conversation-title")).toBeVisible();
  await page.keyboard.press("j");
  await expect(page).toHaveURL(new RegExp(`/conversations/${ids[2]}$`));
  await page.keyboard.press("k");
  await expect(page).toHaveURL(new RegExp(`/conversations/${ids[1]}$`));
  await page.keyboard.press("k");
  await expect(page).toHaveURL(new RegExp(`/conversations/${ids[0]}$`));
  await expect(page.getByTestId("conversation-title")).toContainText("Noor");

  // Typing is typing: j in the message box stays a letter.
  await page.keyboard.press("r");
  const box = page.getByLabel("Message", { exact: true });
  await expect(box).toBeFocused();
  await page.keyboard.type("just");
  await expect(box).toHaveValue("just");
  await expect(page).toHaveURL(new RegExp(`/conversations/${ids[0]}$`));
  await box.fill("");
  await box.blur();

  // a assigns to me, e resolves.
  await page.keyboard.press("a");
  await expect(page.getByTestId("inbox-controls").getByRole("button", { name: "Assign to me" })).toHaveCount(0);
  await page.keyboard.press("e");
  await expect(page.getByTestId("inbox-status")).toHaveText("resolved");

  await page.keyboard.press("?");
  const help = page.getByTestId("shortcuts");
  await expect(help).toBeVisible();
  await expect(help).toContainText("Next conversation");
  await expect(help).toContainText("Resolve the conversation");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
  await page.keyboard.press("/");
  await expect(page).toHaveURL(/\/search$/);
});
