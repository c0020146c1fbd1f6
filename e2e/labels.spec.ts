import { expect, test } from "./fixtures";

/**
 * Labels and priority end to end: an admin defines a label; an agent, in a browser
 * of their own, tags a conversation and sets its priority to urgent from the
 * console; the contact panel shows the label and the timeline a line for each
 * change; the list filtered by label and priority keeps its filter in the address
 * across a reload.
 */
test("an admin defines a label; an agent tags a conversation urgent; the list filters by both, kept in the URL", async ({
  page,
  dashboard,
  browser,
}) => {
  const userId = 4_100_000 + Math.floor(Math.random() * 100_000);
  const label = `billing${userId}`;
  const [tagged, plain] = [`Tagwen${userId}`, `Plainly${userId}`];
  await dashboard.signIn();

  // The admin: a label, and an invitation for an agent.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Labels" }).click();
  const form = page.getByTestId("label-new");
  await form.getByLabel("Label name").fill(label);
  await form.getByRole("button", { name: "Add label" }).click();
  await expect(page.getByTestId("label-row").filter({ hasText: label })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click();
  const inviteForm = page.getByRole("form", { name: "Invite an operator" });
  await inviteForm.getByLabel("Role").selectOption("agent");
  await inviteForm.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByLabel(/Invitation link/).inputValue();

  // Two users write.
  await dashboard.simulate("my invoice is wrong", { firstName: tagged, userId });
  await dashboard.simulate("just saying hello", { firstName: plain, userId: userId + 1 });

  // The agent joins; they see the labels but may not define any.
  const agentContext = await browser.newContext();
  const agent = await agentContext.newPage();
  await agent.goto(link);
  await agent.getByLabel(/^User name/).fill(`lena${userId}`);
  await agent.getByLabel(/^Password/).fill("lena-password-12345");
  await agent.getByRole("button", { name: "Join and sign in" }).click();
  await expect(agent.getByRole("heading", { name: "Conversations" })).toBeVisible();
  await agent.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Labels" }).click();
  await expect(agent.getByTestId("label-row").filter({ hasText: label })).toBeVisible();
  await expect(agent.getByTestId("label-new")).toHaveCount(0);

  // Tags the conversation and sets it urgent, from its page.
  await agent.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Conversations" }).click();
  await agent.getByTestId("inbox-view-all").click();
  await agent.getByLabel("Search conversations").fill(tagged);
  await agent.getByTestId("conversation-row").filter({ hasText: tagged }).click();
  await expect(agent.getByTestId("contact-name")).toHaveText(tagged);
  await agent.getByTestId("inbox-controls").getByTestId("priority").selectOption("urgent");
  const contactLabels = agent.getByTestId("contact-labels");
  await contactLabels.getByText("Edit labels").click();
  // Checked once the server has it (the box shows the conversation's labels as stored).
  const box = contactLabels.getByTestId("label-picker").getByRole("checkbox", { name: label });
  await box.click();
  await expect(box).toBeChecked();
  await expect(contactLabels.getByTestId("label-chip").first()).toHaveText(label);
  await expect(agent.getByTestId("inbox-controls").getByTestId("priority")).toHaveValue("urgent");
  const lines = agent.getByTestId("timeline").getByTestId("state-change");
  await expect(lines.filter({ hasText: `lena${userId} set the priority to urgent` })).toBeVisible();
  await expect(lines.filter({ hasText: `lena${userId} labelled this “${label}”` })).toBeVisible();
  await agent.screenshot({ path: test.info().outputPath("labels-conversation.png"), fullPage: true });

  // The list filtered by the label and by urgent: that conversation only, marked; the filter is in the address.
  await agent.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Conversations" }).click();
  await agent.getByTestId("label-filter").selectOption(label);
  await agent.getByTestId("priority-filter").selectOption("urgent");
  await expect(agent).toHaveURL(new RegExp(`[?&]label=${label}(&|$)`));
  await expect(agent).toHaveURL(/[?&]priority=urgent(&|$)/);
  const rows = agent.getByTestId("conversation-row");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(tagged);
  await expect(rows.first().getByTestId("priority-marker")).toContainText("urgent");
  await expect(rows.first().getByTestId("label-chip")).toHaveText(label);

  await agent.reload();
  await expect(agent.getByTestId("label-filter")).toHaveValue(label);
  await expect(agent.getByTestId("priority-filter")).toHaveValue("urgent");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(tagged);

  // The other conversation is there without the filters.
  await agent.getByTestId("label-filter").selectOption("");
  await agent.getByTestId("priority-filter").selectOption("");
  await agent.getByTestId("inbox-view-all").click();
  await agent.getByLabel("Search conversations").fill(plain);
  await expect(rows.filter({ hasText: plain })).toBeVisible();
  await expect(rows.filter({ hasText: plain }).getByTestId("priority-marker")).toHaveCount(0);
  await agentContext.close();
});
