import { expect, test } from "./fixtures";

/*
 * Issue 51: an operator regenerates the agent's answer from the timeline after changing
 * the instructions; the answer is edited in place in the user's chat (the sandbox is
 * Telegram), the timeline shows the new text (edited) with the earlier one.
 * The fake model answers "Echo: <text>", in upper case when the instructions hold "[shout]".
 */

const API = { authorization: "Bearer e2e-api-token-0123456789" };

test("Regenerate writes the answer again with today's instructions and edits it in the chat", async ({ page, request, dashboard }) => {
  await dashboard.signIn();
  // Random ids of this spec's own range (3,700,000–3,707,999): never another spec's chat.
  const userId = 3_700_000 + Math.floor(Math.random() * 8_000);
  await dashboard.simulate("when do you open?", { firstName: "Rhea", userId });
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page).toHaveURL(/\/conversations\/\d+/);
  const message = (text: string) => page.getByTestId("message").filter({ hasText: text });
  const answer = message("Echo: when do you open?");
  await expect(answer).toBeVisible();
  // The user's own message has no Regenerate.
  await expect(message("when do you open?").first().getByTestId("regenerate")).toHaveCount(0);

  const before = (await (await request.get("/api/v1/settings", { headers: API })).json()) as { settings: { agentInstructions: string } };
  try {
    const changed = await request.patch("/api/v1/settings", {
      headers: API,
      data: { agentInstructions: `${before.settings.agentInstructions} [shout]` },
    });
    expect(changed.status()).toBe(200);
    await answer.getByRole("button", { name: /^Regenerate message/ }).click();
    const regenerated = message("ECHO: WHEN DO YOU OPEN?");
    await expect(regenerated.getByTestId("edited")).toBeVisible();
    await expect(regenerated.getByTestId("earlier-text")).toContainText("Echo: when do you open?");
    await expect(regenerated.getByRole("button", { name: /^Regenerate message/ })).toBeEnabled();
  } finally {
    await request.patch("/api/v1/settings", { headers: API, data: { agentInstructions: before.settings.agentInstructions } });
  }

  // The user's chat has the new answer in place of the old one.
  await page.goto("/simulator");
  await page.getByLabel("User id").fill(String(userId));
  const chat = page.getByTestId("sim-timeline");
  await expect(chat).toContainText("ECHO: WHEN DO YOU OPEN?");
  await expect(chat).not.toContainText("Echo: when do you open?");
});
