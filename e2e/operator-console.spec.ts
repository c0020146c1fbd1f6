import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/**
 * Issue #17's bullets that no other spec covered: display names (and that the
 * model never sees them), live updates of settings, forks and names on pages
 * already open, an operator's send the platform refuses, the prompt inspector
 * from the conversation page and the envelope list, search and envelopes at
 * phone width, the favicon.
 */
const API = { authorization: "Bearer e2e-api-token-0123456789" };
const BOT = "@switchboard_bot";

const message = (page: Page, text: string) => page.getByTestId("timeline").getByTestId("message").filter({ hasText: text });

async function adminId(request: APIRequestContext): Promise<number> {
  const body = (await (await request.get("/api/v1/operators", { headers: API })).json()) as { operators: { id: number; name: string }[] };
  return body.operators.find((o) => o.name === "admin")!.id;
}

async function setDisplayName(request: APIRequestContext, displayName: string | null) {
  const response = await request.patch(`/api/v1/operators/${await adminId(request)}`, { headers: API, data: { displayName } });
  expect(response.status(), await response.text()).toBe(200);
}

/** Counts document loads of a page (reloads, hard navigations): an update that arrives with none came over the event stream. */
function countNavigations(page: Page) {
  const seen = { count: 0 };
  page.on("load", () => seen.count++);
  return seen;
}

test("an operator's display name shows on their messages, envelopes and search results, reaches open pages live, and never the model", async ({
  page,
  context,
  dashboard,
  request,
}) => {
  await setDisplayName(request, null);
  try {
    await dashboard.signIn();
    await dashboard.simulate("display names please", { firstName: "Dora", userId: 9801 });
    await expect(page.getByTestId("sim-timeline")).toContainText("Echo: display names please");
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    await expect(page).toHaveURL(/\/conversations\/\d+$/);
    const conversationUrl = page.url();

    // The bot shows as its username, never the internal agent name.
    const answer = message(page, "Echo: display names please");
    await expect(answer.getByTestId("sender")).toHaveText(BOT);
    await expect(message(page, "display names please").first().getByTestId("sender")).toHaveText("Dora");

    // An operator's message, before a display name is set: the sign-in name, no address prefix.
    const box = page.getByLabel("Message", { exact: true });
    await box.fill("operator here with the quillfeather answer");
    await box.press("Enter");
    const sent = message(page, "quillfeather");
    await expect(sent.getByTestId("message-status")).toHaveText("sent");
    await expect(sent.getByTestId("sender")).toHaveText("admin");

    // A second page stays open on the conversation while the name changes elsewhere.
    const watcher = await context.newPage();
    await watcher.goto(conversationUrl);
    await expect(message(watcher, "quillfeather").getByTestId("sender")).toHaveText("admin");
    const navigations = countNavigations(watcher);

    await page.getByRole("link", { name: "Settings", exact: true }).click();
    const account = page.getByRole("form", { name: "Your account" });
    await account.getByLabel("Display name").fill("Ada Ops");
    await account.getByRole("button", { name: "Save display name" }).click();
    await expect(account.getByRole("status")).toHaveText("Saved.");
    await expect(message(watcher, "quillfeather").getByTestId("sender")).toHaveText("Ada Ops");
    expect(navigations.count).toBe(0);
    await watcher.close();

    // A name that could pose as another line is refused, with the reason.
    const refused = await page.request.patch(`/api/v1/operators/${await adminId(request)}`, {
      headers: { "x-csrf-token": await csrf(page) },
      data: { displayName: "Ada\n--- note" },
    });
    expect(refused.status()).toBe(400);

    // Envelopes: display names, the address (what filters take) on hover.
    await page.goto("/envelopes");
    await page.getByRole("search", { name: "Filter envelopes" }).getByLabel("From", { exact: true }).fill("operator:admin");
    const row = page.getByTestId("envelope-row").filter({ hasText: "quillfeather" });
    await expect(row.getByTestId("envelope-from")).toHaveText("Ada Ops");
    await expect(row.getByTestId("envelope-from")).toHaveAttribute("title", "operator:admin");
    await page.getByRole("search", { name: "Filter envelopes" }).getByLabel("From", { exact: true }).fill("");
    await page.getByRole("search", { name: "Filter envelopes" }).getByLabel("Address").fill("channel:telegram:9801");
    const agentRow = page.getByTestId("envelope-row").filter({ hasText: "Echo: display names please" });
    await expect(agentRow.getByTestId("envelope-from")).toHaveText(BOT);

    // Search results name the sender the same way.
    await page.goto("/search?q=quillfeather");
    await expect(page.getByTestId("search-result")).toContainText("Ada Ops");
    await expect(page.getByTestId("search-result")).not.toContainText("admin");

    // The model sees the operator's message marked by role, never the display name:
    // the next turn's prompt, opened from the conversation page ("Prompt" on the agent's answer).
    await dashboard.simulate("thanks operator", { firstName: "Dora", userId: 9801 });
    await expect(page.getByTestId("sim-timeline")).toContainText("Echo: thanks operator");
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    await message(page, "Echo: thanks operator").getByRole("link", { name: "Prompt" }).click();
    await expect(page).toHaveURL(/\/turns\/\d+$/);
    await expect(page.getByTestId("prompt-message").last()).toContainText("thanks operator");
    await expect(page.getByTestId("prompt-message").filter({ hasText: "(sent by a human operator) operator here" })).toHaveCount(1);
    await expect(page.getByRole("main")).not.toContainText("Ada Ops");
    // Token usage and latency, as the model reported them (the fake reports 10 in, 3 out).
    await expect(page.getByTestId("usage-inputTokens")).toHaveText("10");
    await expect(page.getByTestId("usage-outputTokens")).toHaveText("3");
    await expect(page.getByTestId("turn-latency")).toContainText(/\d+ ms/);
    await dashboard.screenshot("display-name-inspector");
  } finally {
    await setDisplayName(request, null);
  }
});

async function csrf(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === "sb_csrf")?.value ?? "";
}

test("settings and fork changes made elsewhere reach an open page without a reload", async ({ page, context, dashboard, request }) => {
  await dashboard.signIn();
  await dashboard.simulate("live forks please", { firstName: "Liv", userId: 9802 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: live forks please");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page).toHaveURL(/\/conversations\/\d+$/);
  const conversationId = Number(new URL(page.url()).pathname.split("/").pop());

  // Settings: the page has no polling, so only the event stream can bring the change.
  await page.goto("/settings");
  const log = page.getByTestId("settings-changes");
  const navigations = countNavigations(page);
  const before = (await (await request.get("/api/v1/settings", { headers: API })).json()) as { settings: { forkIdleMinutes: number } };
  const changed = before.settings.forkIdleMinutes + 7;
  try {
    expect((await request.patch("/api/v1/settings", { headers: API, data: { forkIdleMinutes: changed } })).status()).toBe(200);
    // Other tests change settings on the same server meanwhile: find this change's row, not the first.
    await expect(
      log.getByRole("row").filter({ hasText: `Fork idle timeout (minutes): ${before.settings.forkIdleMinutes} → ${changed}` }),
    ).toHaveCount(1);
  } finally {
    await request.patch("/api/v1/settings", { headers: API, data: { forkIdleMinutes: before.settings.forkIdleMinutes } });
  }
  await expect(
    log.getByRole("row").filter({ hasText: `Fork idle timeout (minutes): ${changed} → ${before.settings.forkIdleMinutes}` }),
  ).toHaveCount(1);

  // Forks: a task started from another client shows on the open forks page, then its end.
  await page.getByRole("link", { name: "Forks", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Forks" })).toBeVisible();
  const afterClick = navigations.count;
  const started = await request.post("/api/v1/forks", { headers: API, data: { conversationId, task: "live fork task" } });
  expect(started.status(), await started.text()).toBe(201);
  const { fork } = (await started.json()) as { fork: { id: number } };
  const row = page.locator(`[data-testid="fork-row"][data-fork-id="${fork.id}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText("done");
  expect(navigations.count).toBe(afterClick);

  // The conversation page, open in a second tab, shows the fork's message as it is posted.
  const other = await context.newPage();
  await other.goto(`/conversations/${conversationId}`);
  await expect(message(other, "Echo: live fork task")).toContainText(`fork #${fork.id}`);
  await other.close();
});

test("an operator's message the platform refuses shows failed with the reason; Retry delivers it once", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("will the operator get through?", { firstName: "Rae", userId: 9803 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: will the operator get through?");
  const dashboardLink = await page.getByRole("link", { name: "Open in dashboard" }).getAttribute("href");
  await dashboard.nextSendFails("refused");
  await page.goto(dashboardLink!);
  const box = page.getByLabel("Message", { exact: true });
  await box.fill("an operator's refused words");
  await box.press("Enter");
  const failure = page.getByTestId("composer-failure");
  // Refused by the platform: certainly not sent (never "possibly delivered", which asks the operator to check the chat).
  await expect(failure).toContainText("Not sent: Telegram 400: Bad Request: not enough rights to send text messages");
  await expect(failure).not.toContainText("possibly delivered");
  await expect(failure).toContainText("an operator's refused words");
  // Not delivered: nothing in the history yet.
  await expect(message(page, "an operator's refused words")).toHaveCount(0);
  await dashboard.screenshot("operator-send-refused");
  await failure.getByRole("button", { name: "Retry" }).click();
  await expect(failure).toHaveCount(0);
  await expect(message(page, "an operator's refused words")).toHaveCount(1);
  await expect(message(page, "an operator's refused words").getByTestId("message-status")).toHaveText("sent");
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("search and envelopes work on a phone: results open the timeline, rows filter and page, compose names the field, a row opens its prompt", async ({
    page,
    dashboard,
  }) => {
    await dashboard.signIn();
    await dashboard.simulate("phone search for the marmalade invoice", { firstName: "Pho", userId: 9804 });
    await expect(page.getByTestId("sim-timeline")).toContainText("Echo: phone search for the marmalade invoice");
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth);

    await page.goto("/search");
    await page.getByLabel("Search message text").fill("marmalade");
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByTestId("search-result");
    await expect(results).toHaveCount(2);
    await expect(results.locator("mark").first()).toHaveText("marmalade");
    expect(await fits()).toBeLessThanOrEqual(390);
    await dashboard.screenshot("search-phone");
    await results.filter({ hasNotText: "Echo:" }).getByRole("link").click();
    await expect(page).toHaveURL(/\/conversations\/\d+\?message=\d+/);
    await page.getByTestId("timeline").scrollIntoViewIfNeeded();
    await expect(message(page, "phone search for the marmalade invoice").first()).toBeInViewport();

    await page.goto("/envelopes");
    const filters = page.getByRole("search", { name: "Filter envelopes" });
    await filters.getByLabel("Address").fill("channel:telegram:9804");
    const rows = page.getByTestId("envelope-row");
    await expect(rows).toHaveCount(2);
    await filters.getByLabel("Status").selectOption("failed");
    await expect(rows).toHaveCount(0);
    await filters.getByLabel("Status").selectOption("");
    await expect(rows).toHaveCount(2);
    // The page itself never scrolls sideways (a wide table scrolls in its own box).
    expect(await fits()).toBeLessThanOrEqual(390);
    await dashboard.screenshot("envelopes-phone");

    await page.getByText("Compose an envelope").click();
    const form = page.getByRole("form", { name: "Compose an envelope" });
    await form.getByLabel("To", { exact: true }).fill("nowhere");
    await form.getByLabel("Text").fill("from a phone");
    await form.getByRole("button", { name: "Send envelope" }).click();
    await expect(form.getByTestId("to-error")).toContainText('invalid address "nowhere"');
    await expect(form.getByTestId("to-error")).toBeInViewport();
    expect(await fits()).toBeLessThanOrEqual(390);

    // The agent's answer in the list opens the prompt inspector of its turn.
    await rows.filter({ hasText: "Echo: phone search" }).getByRole("link", { name: "prompt" }).click();
    await expect(page).toHaveURL(/\/turns\/\d+$/);
    await expect(page.getByTestId("prompt-message").last()).toContainText("marmalade invoice");
    expect(await fits()).toBeLessThanOrEqual(390);
  });
});

test("first run: the console has a favicon", async ({ page, dashboard }) => {
  await dashboard.signIn();
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toBeTruthy();
  const icon = await page.request.get(href!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/^image\//);
  expect((await icon.body()).length).toBeGreaterThan(100);
});

test("the reply tree pans by dragging the canvas", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("pan the tree", { firstName: "Pan", userId: 9805 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: pan the tree");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await message(page, "pan the tree").first().getByRole("link", { name: "Thread" }).click();
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node")).toHaveCount(2);
  const translation = () =>
    page.locator(".react-flow__viewport").evaluate((el) => {
      const m = new DOMMatrixReadOnly(getComputedStyle(el).transform);
      return { x: Math.round(m.e), y: Math.round(m.f) };
    });
  const before = await translation();
  const pane = (await tree.locator(".react-flow__pane").boundingBox())!;
  // Grab an empty corner of the canvas (not a node) and drag it 120 px right, 60 px down.
  const start = { x: pane.x + 12, y: pane.y + pane.height - 12 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 60, start.y + 30, { steps: 5 });
  await page.mouse.move(start.x + 120, start.y + 60, { steps: 5 });
  await page.mouse.up();
  await expect.poll(translation).toEqual({ x: before.x + 120, y: before.y + 60 });
});
