import { expect, test } from "./fixtures";

test("a handoff lands in Needs a human; an operator takes over, replies, hands back, and the bot answers the next message", async ({
  page,
  dashboard,
}) => {
  const userId = 3_100_000 + Math.floor(Math.random() * 100_000);
  await dashboard.signIn();
  // The fake model replies and calls `handoff` for a message that says [handoff].
  await dashboard.simulate("I need a real person [handoff]", { firstName: "Hana", userId });
  await expect(page.getByTestId("sim-timeline")).toContainText("a person from our team will reply here soon");

  // The badge shows on every page, the inbox lists it at the top with the reason.
  await expect(page.getByTestId("handoff-badge")).toBeVisible();
  await page.getByRole("link", { name: "Conversations" }).click();
  const inbox = page.getByTestId("needs-human");
  const row = inbox.getByTestId("needs-human-row").filter({ hasText: "Hana" });
  await expect(row).toContainText("the user asked for a person");
  await expect(row).toContainText("waiting");
  await dashboard.screenshot("needs-a-human");

  // While it waits, the agent is silent.
  await dashboard.simulate("hello? [still waiting]", { firstName: "Hana", userId });
  await page.getByRole("link", { name: "Conversations" }).click();
  await inbox.getByTestId("needs-human-row").filter({ hasText: "Hana" }).getByRole("link").click();
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("message").filter({ hasText: "hello? [still waiting]" })).toBeVisible();
  await expect(timeline).not.toContainText("Echo: hello?");

  // Take over, reply, hand back.
  const control = page.getByTestId("handoff-control");
  await control.getByRole("button", { name: "Take over" }).click();
  await expect(control.getByTestId("handoff-state")).toContainText("with admin");
  await timeline
    .getByTestId("message")
    .filter({ hasText: "hello? [still waiting]" })
    .getByRole("button", { name: /^Reply to message/ })
    .click();
  await page.getByLabel("Message", { exact: true }).fill("Hi Hana, this is a person. Your refund is on its way.");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(timeline.getByTestId("message").filter({ hasText: "this is a person" })).toBeVisible();
  await dashboard.screenshot("handoff-assigned");
  await control.getByRole("button", { name: "Hand back" }).click();
  await expect(control.getByRole("button", { name: "Hand off to a human" })).toBeVisible();

  // The next user message is answered by the bot again.
  await dashboard.simulate("thanks, all good now", { firstName: "Hana", userId });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: thanks, all good now");
  await page.getByRole("link", { name: "Conversations" }).click();
  await expect(page.getByTestId("needs-human-row").filter({ hasText: "Hana" })).toHaveCount(0);
});

test("the handoff API refuses an invalid transition with 409", async ({ page, dashboard }) => {
  const userId = 3_200_000 + Math.floor(Math.random() * 100_000);
  await dashboard.signIn();
  await dashboard.simulate("just saying hi", { firstName: "Ivo", userId });
  const { conversations } = await (await page.request.get("/api/v1/conversations?search=Ivo")).json();
  const id = conversations[0].id;
  const csrf = (await page.context().cookies()).find((c) => c.name === "sb_csrf")!.value;
  const post = (action: string) =>
    page.request.post(`/api/v1/conversations/${id}/handoff`, { data: { action }, headers: { "x-csrf-token": csrf } });
  expect((await post("take")).status()).toBe(409);
  expect((await post("release")).status()).toBe(409);
  // A mutation without the CSRF token changes nothing.
  expect((await page.request.post(`/api/v1/conversations/${id}/handoff`, { data: { action: "request" } })).status()).toBe(403);
  const requested = await post("request");
  expect(requested.status()).toBe(200);
  expect((await requested.json()).handoff).toMatchObject({ state: "waiting" });
  expect((await post("request")).status()).toBe(409);
  const detail = await (await page.request.get(`/api/v1/conversations/${id}`)).json();
  expect(detail.conversation.handoff).toMatchObject({ state: "waiting", operator: null });
  expect((await post("take")).status()).toBe(200);
  expect((await post("take")).status()).toBe(409);
  expect((await post("release")).status()).toBe(200);
});

test("notification permission is asked only on a click; GET on the handoff route changes nothing", async ({ page, dashboard }) => {
  // Count permission prompts; report "default" so the button shows whatever the headless browser decides.
  await page.addInitScript(() => {
    const w = window as unknown as { __asked: number };
    w.__asked = 0;
    Object.defineProperty(Notification, "permission", { get: () => "default", configurable: true });
    Notification.requestPermission = async () => {
      w.__asked += 1;
      return "denied";
    };
  });
  await dashboard.signIn();
  await page.getByRole("link", { name: "Conversations" }).click();
  const button = page.getByRole("button", { name: "Notify me of handoffs" });
  await expect(button).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
  await button.click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(1);
  // Denied: the button goes away and nothing asks again.
  await expect(button).toHaveCount(0);

  const userId = 3_300_000 + Math.floor(Math.random() * 100_000);
  await dashboard.simulate("hello there", { firstName: "Gus", userId });
  const { conversations } = await (await page.request.get("/api/v1/conversations?search=Gus")).json();
  const id = conversations[0].id;
  expect((await page.request.get(`/api/v1/conversations/${id}/handoff`)).status()).toBe(405);
  const detail = await (await page.request.get(`/api/v1/conversations/${id}`)).json();
  expect(detail.conversation.handoff).toBeNull();

  // An operator who answers a waiting user has taken the conversation.
  const csrf = (await page.context().cookies()).find((c) => c.name === "sb_csrf")!.value;
  expect(
    (
      await page.request.post(`/api/v1/conversations/${id}/handoff`, { data: { action: "request" }, headers: { "x-csrf-token": csrf } })
    ).status(),
  ).toBe(200);
  await page.goto(`/conversations/${id}`);
  const control = page.getByTestId("handoff-control");
  await expect(control.getByRole("button", { name: "Take over" })).toBeVisible();
  const timeline = page.getByTestId("timeline");
  await timeline
    .getByTestId("message")
    .filter({ hasText: "hello there" })
    .first()
    .getByRole("button", { name: /^Reply to message/ })
    .click();
  await page.getByLabel("Message", { exact: true }).fill("A person here, how can I help?");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(control.getByTestId("handoff-state")).toContainText("with admin");
  await expect(control.getByRole("button", { name: "Hand back" })).toBeVisible();
});

test("the per-user handoff limit is set in Settings: a user past it in another chat is not handed off again", async ({
  page,
  dashboard,
}) => {
  const userId = 3_400_000 + Math.floor(Math.random() * 100_000);
  await dashboard.signIn();
  await page.goto("/settings");
  await page.getByLabel("Handoffs one user may start per hour").fill("1");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status")).toContainText("Saved");
  await expect(page.getByTestId("settings-changes")).toContainText("Handoffs one user may start per hour: 3 → 1");
  try {
    // The first request, in a private chat, is handed off; the same user's in a group is not.
    await dashboard.simulate("/human please", { firstName: "Lim", userId });
    await expect(page.getByTestId("sim-timeline")).toContainText("a person from our team will reply here soon");
    await dashboard.simulate("/human again", { firstName: "Lim", userId, groupId: -(900_000 + userId) });
    await page.getByRole("link", { name: "Conversations" }).click();
    const rows = page.getByTestId("needs-human").getByTestId("needs-human-row").filter({ hasText: "Lim" });
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText("please");
  } finally {
    await page.goto("/settings");
    await page.getByLabel("Handoffs one user may start per hour").fill("3");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByRole("status")).toContainText("Saved");
  }
});
