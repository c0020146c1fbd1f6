import { expect, test } from "./fixtures";

test("an admin invites an agent; the agent joins, signs in and sees no admin pages; disabled, they are signed out", async ({
  dashboard,
  page,
  browser,
}) => {
  const name = `agent${Date.now() % 1_000_000}`;
  const password = "agent-password-123";
  await dashboard.signIn();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click();
  await expect(page.getByRole("heading", { name: "Operators" })).toBeVisible();
  const inviteForm = page.getByRole("form", { name: "Invite an operator" });
  await inviteForm.getByLabel("Role").selectOption("agent");
  await inviteForm.getByRole("button", { name: "Create invitation link" }).click();
  const link = await page.getByLabel(/Invitation link/).inputValue();
  expect(link).toMatch(/\/invite#[\w-]{43}$/);
  await expect(page.getByRole("region", { name: "Open invitations" })).toContainText("agent, by admin");

  // The invitee, in a browser of their own.
  const agentContext = await browser.newContext();
  const agent = await agentContext.newPage();
  const at = (path: string) => new URL(path, link).href;
  await agent.goto(link);
  await agent.getByLabel(/^User name/).fill(name);
  await agent.getByLabel(/^Display name/).fill("Agent Smith");
  // A password made here: browsers offer to generate one (as on the setup page).
  await expect(agent.getByLabel(/^Password/)).toHaveAttribute("autocomplete", "new-password");
  await agent.getByLabel(/^Password/).fill(password);
  await agent.getByRole("button", { name: "Join and sign in" }).click();
  await expect(agent.getByRole("heading", { name: "Conversations" })).toBeVisible();
  const nav = agent.getByRole("navigation", { name: "Main" });
  // Named as messages name them: the display name they chose (issue 53).
  await expect(nav).toContainText("Signed in as Agent Smith (agent)");
  await expect(nav.getByRole("link", { name: "Operators" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "Simulator" })).toHaveCount(0);

  // Typed addresses of admin pages show a refusal, not the controls.
  await agent.goto(at("/operators"));
  await expect(agent.getByRole("alert").filter({ hasText: "Only an admin can manage operators" })).toBeVisible();
  await expect(agent.getByRole("form", { name: "Invite an operator" })).toHaveCount(0);
  await agent.goto(at("/simulator"));
  await expect(agent.getByRole("alert").filter({ hasText: "Only an admin can use the simulator" })).toBeVisible();
  await agent.goto(at("/settings"));
  await expect(agent.getByRole("form", { name: "Your account" })).toBeVisible();
  await expect(agent.getByRole("form", { name: "Change your password" })).toBeVisible();
  await expect(agent.getByRole("region", { name: "Your sessions" })).toContainText("(this browser)");
  await expect(agent.getByText("Context and forks")).toHaveCount(0);

  // Signed out, the agent signs in with the password they chose; the link does not work twice.
  await nav.getByRole("button", { name: "Sign out" }).click();
  await expect(agent).toHaveURL(/\/login(\?next=[^&]+)?$/);
  await agent.goto(link);
  // Said at once, before any form to fill in (issue 53).
  await expect(agent.getByRole("alert").filter({ hasText: "not valid" })).toBeVisible();
  await expect(agent.getByLabel(/^User name/)).toHaveCount(0);
  // Only that: none of the form's text either.
  await expect(agent.getByText(/Choose the name you sign in with/)).toHaveCount(0);
  await agent.goto(at("/login"));
  await agent.getByLabel("User name").fill(name);
  await agent.getByLabel("Password").fill(password);
  await agent.getByRole("button", { name: "Sign in" }).click();
  await expect(agent.getByRole("heading", { name: "Conversations" })).toBeVisible();

  // The admin sees them in the team and disables them: the agent's next page is the sign-in page.
  await page.reload();
  const row = page.getByRole("row", { name: `Operator ${name}` });
  await expect(row).toContainText("Agent Smith");
  await expect(row.getByLabel(`Role of ${name}`)).toHaveValue("agent");
  await expect(page.getByRole("region", { name: "Open invitations" })).toHaveCount(0);
  // Limited to no bot at all, the agent's inbox is empty at their next request; "All bots" gives everything back.
  const bots = row.getByLabel(`Bots of ${name}`);
  await expect(bots).toHaveText("all bots");
  await bots.click();
  // Checkboxes follow the server's answer: click, then wait for it.
  await row.getByLabel("All bots").click();
  await expect(row.getByLabel("All bots")).not.toBeChecked();
  const boxes = row.getByRole("checkbox");
  const count = await boxes.count();
  for (let i = 1; i < count; i++) {
    await boxes.nth(i).click();
    await expect(boxes.nth(i)).not.toBeChecked();
  }
  await expect(bots).toHaveText("no bots");
  const limited = await agent.request.get(at("/api/v1/conversations"));
  expect(((await limited.json()) as { counts: { all: number } }).counts.all).toBe(0);
  await row.getByLabel("All bots").click();
  await expect(bots).toHaveText("all bots");
  // Disabling asks first: dismissed, nothing changes.
  page.once("dialog", (dialog) => void dialog.dismiss());
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row.getByRole("button", { name: "Disable" })).toBeVisible();
  await expect(row).toContainText("active");
  page.once("dialog", (dialog) => {
    expect(dialog.message()).toContain(`Disable ${name}?`);
    void dialog.accept();
  });
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row).toContainText("disabled");
  // Their open page hears of it live and goes to the sign-in page; a navigation of theirs lands there too.
  await agent.goto(at("/settings")).catch(() => {});
  await expect(agent).toHaveURL(/\/login(\?next=[^&]+)?$/);
  await agentContext.close();
});
