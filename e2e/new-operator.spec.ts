import type { APIRequestContext, Page } from "@playwright/test";
import { E2E_ADMIN } from "../playwright.config";
import { expect, test } from "./fixtures";

/*
 * What a new operator met walking the README's use cases in Chromium (issue 27):
 * each test here failed before its fix.
 */

const API = { authorization: "Bearer e2e-api-token-0123456789" };

async function openConversation(page: Page): Promise<number> {
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page).toHaveURL(/\/conversations\/\d+/);
  return Number(new URL(page.url()).pathname.split("/").pop());
}

async function apiPost(request: APIRequestContext, path: string, data?: unknown) {
  const response = await request.post(`/api/v1${path}`, { headers: API, ...(data === undefined ? {} : { data }) });
  expect(response.ok(), await response.text()).toBe(true);
  return response.json();
}

/** Until the fork's task has posted (the worker runs it). */
async function settledFork(request: APIRequestContext, id: number) {
  await expect
    .poll(async () => {
      const { forks } = await (await request.get("/api/v1/forks", { headers: API })).json();
      return forks.find((f: { id: number }) => f.id === id)?.status;
    })
    .toBe("done");
}

test("a fork's report is labelled as the fork's in the console, not shown in the simulator's chat, and the forks page follows a Resume", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  // A chat of its own per attempt: a retry must not meet the fork the first attempt left active.
  const userId = 3_800_000 + Math.floor(Math.random() * 100_000);
  await dashboard.simulate("Hi, I track parcel 27", { firstName: "Rhea", userId });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Hi, I track parcel 27");
  const conversationId = await openConversation(page);

  // A background task, resumed as an interactive fork, exited with a report.
  const { fork: background } = await apiPost(request, "/forks", { conversationId, task: "Check the parcel" });
  await settledFork(request, background.id);
  const { fork: interactive } = await apiPost(request, `/forks/${background.id}/resume`);
  await apiPost(request, `/forks/${interactive.id}/exit`, { strategy: "report" });

  await page.goto(`/conversations/${conversationId}`);
  const report = page.getByTestId("message").filter({ hasText: `Fork #${interactive.id} ended` });
  await expect(report.getByTestId("sender")).toHaveText("Fork report");
  await expect(report).toContainText("not sent");
  // Not an operator's message: nobody wrote it to the chat, so there is nothing to reply to.
  await expect(report.getByRole("button", { name: /^Reply to message/ })).toHaveCount(0);
  await dashboard.screenshot("fork-report");

  // The simulator plays the user's chat: the report was never sent there.
  await page.goto("/simulator");
  await page.getByLabel("User id").fill(String(userId));
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Hi, I track parcel 27");
  await expect(page.getByTestId("sim-timeline")).not.toContainText("ended");

  // Resume the reported fork from the forks page: its row is active, with nothing left of its last exit.
  await page.goto(`/forks?conversationId=${conversationId}`);
  const row = page.locator(`[data-testid="fork-row"][data-fork-id="${interactive.id}"]`);
  const [about, status] = [row.locator("td").nth(0), row.locator("td").nth(2)];
  await expect(status).toHaveText("exitedreport");
  await row.getByRole("button", { name: "Resume" }).click();
  await expect(status).toHaveText("active");
  await expect(about).not.toContainText("ended");
  await page.reload();
  await expect(status).toHaveText("active");
  await expect(about).not.toContainText("ended");
  await apiPost(request, `/forks/${interactive.id}/exit`, { strategy: "discard" });
});

test("long texts are refused with a sentence, never cut: composer, API and simulator; a double click sends once", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  // The simulator plays a Telegram user: 4,096 characters at most, said before sending.
  await page.goto("/simulator");
  await page.getByLabel("User id").fill("27002");
  await page.getByLabel("User's first name").fill("Lena");
  const simBox = page.getByLabel("Message", { exact: true });
  await simBox.fill("z".repeat(4_100));
  await expect(page.getByTestId("sim-too-long")).toHaveText(
    "Too long: 4,100 characters; one message holds at most 4,096. Shorten it or send it as two messages.",
  );
  await expect(page.getByRole("button", { name: /^Send as/ })).toBeDisabled();

  // A double click sends once.
  await simBox.fill("double click me");
  await page.getByRole("button", { name: /^Send as/ }).dblclick();
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: double click me");
  await page.waitForTimeout(1_000);
  await expect(page.getByTestId("sim-message").filter({ hasText: /^Lena/ }).filter({ hasText: "double click me" })).toHaveCount(1);
  const conversationId = await openConversation(page);
  await expect(page.getByTestId("message").filter({ hasText: /^Lena/ }).filter({ hasText: "double click me" })).toHaveCount(1);

  // The composer keeps every pasted character; over the limit it says so and does not send.
  const box = page.getByLabel("Message", { exact: true });
  await box.fill("y".repeat(6_000));
  await expect(box).toHaveValue("y".repeat(6_000));
  await expect(page.getByTestId("composer-too-long")).toHaveText(
    "Too long: 6,000 characters; one message holds at most 5,000. Shorten it or send it as two messages.",
  );
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeDisabled();
  await box.press("Enter");
  await expect(box).toHaveValue("y".repeat(6_000));

  // Up to the limit it goes out whole (Telegram receives it in parts of 4,096).
  const long = `${"x".repeat(4_990)} THE-END`;
  await box.fill(long);
  await box.press("Enter");
  const sent = page.getByTestId("message").filter({ hasText: "THE-END" });
  await expect(sent.getByTestId("message-status")).toHaveText("sent");
  expect((await sent.locator(".text").textContent())?.length).toBe(long.length);

  // The API says the same sentence.
  const response = await request.post(`/api/v1/conversations/${conversationId}/messages`, {
    headers: API,
    data: { text: "w".repeat(5_001) },
  });
  expect(response.status()).toBe(400);
  expect(JSON.stringify(await response.json())).toContain("Too long: 5,001 characters; one message holds at most 5,000.");
});

test("right-to-left text reads right to left; the /human auto-reply has no dead Prompt link; the inbox says the agent is off while a human is awaited; the simulator shows what a bot reply quotes", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  const hebrew = "שלום parcel27rtl, איפה החבילה שלי?";
  await dashboard.simulate(hebrew, { firstName: "Noa", userId: 27_003 });
  await expect(page.getByTestId("sim-timeline")).toContainText(`Echo: ${hebrew}`);
  // The simulator shows the quoted message above the bot's native reply.
  const echo = page.getByTestId("sim-message").filter({ hasText: `Echo: ${hebrew}` });
  await expect(echo.getByTestId("sim-reply-quote")).toContainText(`Noa: “${hebrew}”`);
  await expect(echo.locator(".text")).toHaveAttribute("dir", "auto");

  await dashboard.simulate("/human", { firstName: "Noa", userId: 27_003 });
  await expect(page.getByTestId("sim-timeline")).toContainText("a person from our team will reply here soon");
  await openConversation(page);
  const timeline = page.getByTestId("timeline");
  const body = timeline.getByTestId("message").filter({ hasText: /^Noa/ }).filter({ hasText: hebrew }).locator(".text");
  expect(await body.evaluate((el) => el.matches(":dir(rtl)"))).toBe(true);
  // The agent's answer has its prompt; the auto-reply was written by no turn: no link to nothing.
  await expect(
    timeline
      .getByTestId("message")
      .filter({ hasText: `Echo: ${hebrew}` })
      .getByTestId("inspect-link"),
  ).toHaveCount(1);
  const autoReply = timeline.getByTestId("message").filter({ hasText: "will reply here soon" });
  await expect(autoReply).toBeVisible();
  await expect(autoReply.getByTestId("inspect-link")).toHaveCount(0);

  await page.goto("/");
  const row = page.locator('[data-testid="conversation-row"]').filter({ hasText: "Noa" });
  await expect(row.getByTestId("agent-state")).toHaveText("off: waiting for a human");
  expect(await row.getByTestId("last-message-text").evaluate((el) => el.getAttribute("dir"))).toBe("auto");
  await dashboard.screenshot("inbox-waiting");

  await page.goto("/search");
  await page.getByLabel("Search message text").fill("parcel27rtl");
  await page.getByRole("button", { name: "Search" }).click();
  const snippet = page.getByTestId("search-result").filter({ hasNotText: "Echo:" }).locator(".snippet");
  await expect(snippet).toHaveAttribute("dir", "auto");
  expect(await snippet.evaluate((el) => el.matches(":dir(rtl)"))).toBe(true);
});

test("the envelope filters take what the list shows, and a delivered envelope is not due 'now'", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("envelope filter check", { firstName: "Uma", userId: 27_004 });
  await openConversation(page);
  const box = page.getByLabel("Message", { exact: true });
  await box.fill("from the operator, for the filter 27");
  await box.press("Enter");
  await expect(page.getByTestId("message").filter({ hasText: "for the filter 27" }).getByTestId("message-status")).toHaveText("sent");

  await page.goto("/envelopes");
  const row = page.getByTestId("envelope-row").filter({ hasText: "for the filter 27" });
  await expect(row).toContainText(`operator:${E2E_ADMIN.name}`);
  await expect(row.getByTestId("envelope-due")).toHaveText("—");
  // Typing what the list shows finds it, as does the address.
  const shown = (await row.getByTestId("envelope-from").textContent())!;
  for (const typed of [shown, `operator:${E2E_ADMIN.name}`]) {
    await page.getByRole("search", { name: "Filter envelopes" }).getByLabel("From").fill(typed);
    await expect(row).toBeVisible();
    await expect(page.getByTestId("envelope-row").filter({ hasText: "Echo: envelope filter check" })).toHaveCount(0);
  }
  await dashboard.screenshot("envelope-filter");
});

test("sign-in returns to the page asked for, and only to this site's pages", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/forks?conversationId=1");
  await expect(page).toHaveURL(/\/login\?next=%2Fforks%3FconversationId%3D1$/);
  await page.getByLabel("User name").fill(E2E_ADMIN.name);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/forks\?conversationId=1$/);
  await expect(page.getByRole("heading", { name: "Forks" })).toBeVisible();
  await context.close();

  // Another site, protocol-relative or backslashed: the sign-in lands on the console's home.
  for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "/login"]) {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`/login?next=${encodeURIComponent(next)}`);
    await p.getByLabel("User name").fill(E2E_ADMIN.name);
    await p.getByLabel("Password").fill(E2E_ADMIN.password);
    await p.getByRole("button", { name: "Sign in" }).click();
    await expect(p.getByRole("heading", { name: "Conversations" })).toBeVisible();
    expect(new URL(p.url()).pathname).toBe("/");
    await other.close();
  }
});

test("the reply tree: a click on the minimap moves the view, and zoomed out it says what it holds", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  await dashboard.simulate("tree root 27", { firstName: "Tess", userId: 27_005 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: tree root 27");
  await openConversation(page);
  await page.getByTestId("message").filter({ hasText: "tree root 27" }).first().getByRole("link", { name: "Thread" }).click();
  await expect(page).toHaveURL(/\/messages\/\d+$/);
  const rootId = Number(new URL(page.url()).pathname.split("/").pop());
  let parent = rootId;
  for (let i = 1; i <= 6; i++)
    parent = (await apiPost(request, `/messages/${i % 2 ? rootId : parent}/reply`, { text: `branch ${i}` })).messageId;
  await page.reload();
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node")).toHaveCount(8);
  const transform = () => page.locator(".react-flow__viewport").evaluate((el) => getComputedStyle(el).transform);
  await page.getByRole("button", { name: "Zoom In" }).click();
  await page.getByRole("button", { name: "Zoom In" }).click();
  await page.waitForTimeout(400);
  const before = await transform();
  const map = (await page.getByRole("img", { name: "Mini Map" }).boundingBox())!;
  await page.mouse.click(map.x + 8, map.y + map.height - 8);
  await expect.poll(transform).not.toBe(before);

  // Zoomed out until the nodes cannot be read: a summary in readable type.
  await expect(page.getByTestId("tree-summary")).toHaveCount(0);
  for (let i = 0; i < 8; i++) await page.getByRole("button", { name: "Zoom Out" }).click();
  const summary = page.getByTestId("tree-summary");
  await expect(summary).toContainText("8 messages");
  await expect(summary).toContainText("branch point");
  expect(await summary.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))).toBeGreaterThanOrEqual(13);
  await dashboard.screenshot("tree-summary");
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the navigation folds under a Menu button and leaves the screen to the page", async ({ page, dashboard }) => {
    await dashboard.signIn();
    const nav = page.getByRole("navigation", { name: "Main" });
    expect((await nav.boundingBox())!.height).toBeLessThan(60);
    await expect(nav.getByRole("link", { name: "Envelopes" })).toBeHidden();
    await nav.getByRole("button", { name: "Menu" }).click();
    await expect(nav.getByRole("button", { name: "Menu" })).toHaveAttribute("aria-expanded", "true");
    await nav.getByRole("link", { name: "Envelopes" }).click();
    await expect(page).toHaveURL(/\/envelopes$/);
    await expect(nav.getByRole("link", { name: "Envelopes" })).toBeHidden();
    await dashboard.screenshot("phone-nav");
  });
});

test("the queue charts: time ticks in whole seconds, the time to answer inside the plot", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("chart check 27", { firstName: "Cai", userId: 27_006 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: chart check 27");
  await page.goto("/envelopes");
  await expect(page.getByTestId("depth-chart").locator("canvas")).toBeVisible();
  await page.waitForTimeout(7_000);
  await page.getByTestId("queue-panel").screenshot({ path: test.info().outputPath("queue-charts.png") });
});
