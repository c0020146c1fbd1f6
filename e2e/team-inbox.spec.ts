import { expect, test } from "./fixtures";

/**
 * The team inbox end to end, with two people: an admin invites an agent; the agent
 * joins through the link in a browser of their own, takes a conversation from
 * Unassigned, answers with a saved reply typed as /shortcut, adds a note and
 * resolves it; the admin finds it under Resolved with each change as a line in its
 * timeline. The agent moves between conversations with the keyboard.
 */
test("an admin invites an agent who takes, answers, notes and resolves a conversation; the admin sees it resolved", async ({
  page,
  dashboard,
  browser,
}) => {
  const n = Date.now() % 100_000;
  const agentName = `bo${n}`;
  const agentShown = `Bo ${n}`;
  const shortcut = `parcel${n}`;
  const [ines, jon, kai] = [`Ines${n}`, `Jon${n}`, `Kai${n}`];
  const userId = 30_000 + (n % 10_000) * 3;
  await dashboard.signIn();

  // The admin: a team saved reply, and an invitation for an agent.
  await page.getByRole("link", { name: "Saved replies" }).click();
  const form = page.getByTestId("saved-reply-new");
  await form.getByLabel("Shortcut").fill(shortcut);
  await form.getByLabel("Text").fill("Hello {{first_name}}, your parcel left our warehouse today.");
  await form.getByRole("button", { name: "Save reply" }).click();
  await expect(page.getByTestId("saved-reply-row").filter({ hasText: `/${shortcut}` })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click();
  const inviteForm = page.getByRole("form", { name: "Invite an operator" });
  await inviteForm.getByLabel("Role").selectOption("agent");
  await inviteForm.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByLabel(/Invitation link/).inputValue();

  // Three users write; each is answered, so no later activity reorders the list under the keys.
  for (const [i, name] of [ines, jon, kai].entries()) {
    await dashboard.simulate(`where is my parcel, ${name}?`, { firstName: name, userId: userId + i });
    await expect(page.getByTestId("sim-timeline")).toContainText(`Echo: where is my parcel, ${name}?`);
  }

  // The agent joins in a browser of their own.
  const agentContext = await browser.newContext();
  const agent = await agentContext.newPage();
  await agent.goto(link);
  await agent.getByLabel(/^User name/).fill(agentName);
  await agent.getByLabel(/^Display name/).fill(agentShown);
  await agent.getByLabel(/^Password/).fill("bo-password-12345");
  await agent.getByRole("button", { name: "Join and sign in" }).click();
  await expect(agent.getByRole("heading", { name: "Conversations" })).toBeVisible();
  await expect(agent.getByRole("navigation", { name: "Main" })).toContainText(`Signed in as ${agentShown} (agent)`);
  // No pointer to the simulator, which only admins may open.
  await expect(agent.getByTestId("inbox-view-all")).toBeVisible();
  await expect(agent.getByTestId("sandbox-banner")).toHaveCount(0);

  // Takes Ines's conversation from Unassigned.
  await agent.getByTestId("inbox-view-unassigned").click();
  await agent.getByTestId("conversation-row").filter({ hasText: ines }).click();
  const controls = agent.getByTestId("inbox-controls");
  await controls.getByRole("button", { name: "Assign to me" }).click();
  await expect(controls.getByRole("button", { name: "Assign to me" })).toHaveCount(0);
  const timeline = agent.getByTestId("timeline");
  await expect(timeline.getByTestId("state-change").filter({ hasText: `${agentShown} took this` })).toBeVisible();

  // Answers with the saved reply: "/" and the start of the shortcut, Enter picks it (filled for Ines), Enter sends.
  const box = agent.getByLabel("Message", { exact: true });
  await box.fill(`/${shortcut.slice(0, 8)}`);
  await expect(agent.getByTestId("saved-reply-menu")).toContainText(`Hello ${ines}, your parcel left`);
  await box.press("Enter");
  await expect(box).toHaveValue(`Hello ${ines}, your parcel left our warehouse today.`);
  await box.press("Enter");
  await expect(timeline.getByTestId("message").filter({ hasText: `Hello ${ines}, your parcel left` })).toContainText("sent");
  await expect(box).toHaveValue("");

  // A note for the team, then resolved.
  await agent.getByLabel("Note for the team").check();
  await agent.getByLabel("Internal note", { exact: true }).fill(`Tracking number sent to ${ines} by mail.`);
  await agent.getByRole("button", { name: "Add note" }).click();
  await expect(timeline.getByTestId("note").filter({ hasText: `Tracking number sent to ${ines}` })).toBeVisible();
  await controls.getByRole("button", { name: "Resolve" }).click();
  await expect(controls.getByTestId("inbox-status")).toHaveText("resolved");
  await expect(timeline.getByTestId("state-change").filter({ hasText: `${agentShown} resolved this` })).toBeVisible();

  // The keyboard: j and k move through Unassigned (Kai, newest, then Jon); Enter opens.
  await agent.getByRole("link", { name: "Conversations" }).click();
  await agent.getByTestId("inbox-view-unassigned").click();
  const rows = agent.locator("tr[data-conversation-id]");
  await expect(rows.first()).toContainText(kai);
  await expect(rows.nth(1)).toContainText(jon);
  await expect(agent.getByTestId("conversation-row").filter({ hasText: ines })).toHaveCount(0);
  await agent.keyboard.press("j");
  await agent.keyboard.press("j");
  await expect(rows.nth(1)).toBeFocused();
  await agent.keyboard.press("Enter");
  await expect(agent.getByTestId("conversation-title")).toContainText(jon);
  await agent.keyboard.press("k");
  await expect(agent.getByTestId("conversation-title")).toContainText(kai);
  await agent.keyboard.press("j");
  await expect(agent.getByTestId("conversation-title")).toContainText(jon);
  await agentContext.close();

  // The admin finds it under Resolved, with who did what in its timeline.
  await page.getByRole("link", { name: "Conversations" }).click();
  await expect(page.getByTestId("sandbox-banner")).toContainText("simulator");
  await page.getByTestId("inbox-view-unassigned").click();
  await expect(page.getByTestId("conversation-row").filter({ hasText: kai })).toBeVisible();
  await expect(page.getByTestId("conversation-row").filter({ hasText: ines })).toHaveCount(0);
  await page.getByTestId("inbox-view-resolved").click();
  await page.getByTestId("conversation-row").filter({ hasText: ines }).click();
  await expect(page.getByTestId("inbox-status")).toHaveText("resolved");
  const adminTimeline = page.getByTestId("timeline");
  const lines = adminTimeline.getByTestId("state-change");
  await expect(lines).toHaveText([new RegExp(`^${agentShown} took this`), new RegExp(`^${agentShown} resolved this`)]);
  await expect(adminTimeline.getByTestId("note")).toContainText(`Tracking number sent to ${ines} by mail.`);
  await expect(adminTimeline.getByTestId("message").filter({ hasText: `Hello ${ines}, your parcel left` })).toContainText(agentShown);
  await dashboard.screenshot("team-inbox-resolved");

  // The note is found by search, marked as a note, apart from the messages.
  await page.goto("/search");
  await page.getByLabel("Search message text").fill(`tracking ${ines}`);
  await page.getByRole("search").getByRole("button", { name: "Search" }).click();
  const note = page.getByTestId("note-result");
  await expect(note).toHaveCount(1);
  await expect(note).toContainText("internal note");
  await expect(note).toContainText(agentShown);
  await expect(page.getByTestId("search-result")).toHaveCount(0);
});
