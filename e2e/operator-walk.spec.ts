import type { APIRequestContext, Page } from "@playwright/test";
import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { expect, test } from "./fixtures";

/*
 * What a second new operator met walking the console in Chromium (issue 53, items
 * 13–16): each test here failed before its fix. Layout is asserted as measured
 * geometry (what overflows, what overlaps), not as pixels.
 */

const API = { authorization: "Bearer e2e-api-token-0123456789" };
// From the clock: a retried worker reloads this file, and a reused update id would be dropped as a duplicate.
let updateId = 53_000_000 + (Date.now() % 10_000_000) * 10;
let messageId = 0;

/** Posts one Telegram message (a real Update through the webhook) into a group the bot reads but does not answer. */
async function postToGroup(request: APIRequestContext, chat: { id: number; title: string }, message: Record<string, unknown>) {
  const response = await request.post("/api/webhooks/telegram", {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: {
      update_id: ++updateId,
      message: {
        message_id: ++messageId,
        from: { id: 9_530_001, is_bot: false, first_name: "Noor" },
        chat: { ...chat, type: "supergroup" },
        date: Math.floor(Date.now() / 1000),
        ...message,
      },
    },
  });
  expect(response.status()).toBe(200);
}

async function conversationId(request: APIRequestContext, title: string): Promise<number> {
  const response = await request.get(`/api/v1/conversations?search=${encodeURIComponent(title)}`, { headers: API });
  const { conversations } = (await response.json()) as { conversations: { id: number; title: string }[] };
  return conversations.find((c) => c.title === title)!.id;
}

/** A group conversation holding `count` user messages (and nothing the bot wrote). */
async function groupWith(request: APIRequestContext, title: string, count: number): Promise<number> {
  const chat = { id: -1_005_300_000_000 - (Date.now() % 1_000_000), title };
  for (let n = 1; n <= count; n++) await postToGroup(request, chat, { text: `${title} message ${n}` });
  return conversationId(request, title);
}

/** How far the page is wider than the viewport (0: nothing scrolls sideways). */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

test("the conversation list hydrates without a mismatch on fresh loads (React error #418)", async ({ page, dashboard, browser }) => {
  test.setTimeout(240_000);
  await dashboard.signIn();
  // Something to list, and a handoff (the inbox's top section and the nav's badge read the same query).
  await dashboard.simulate("hydrate me [handoff]", { firstName: "Hydra", userId: 53_014 });
  const state = await page.context().storageState();
  for (let load = 0; load < 6; load++) {
    // A fresh browser context each time: no cache, no stored inbox choice.
    const context = await browser.newContext({ storageState: state });
    const fresh = await context.newPage();
    const problems: string[] = [];
    fresh.on("console", (m) => {
      if (m.type() === "error" || /hydrat/i.test(m.text())) problems.push(m.text());
    });
    fresh.on("pageerror", (e) => problems.push(e.message));
    await fresh.goto("/");
    await expect(fresh.getByTestId("conversation-row").first()).toBeVisible();
    await expect(fresh.getByTestId("needs-human")).toBeVisible();
    // Hydration errors are reported once React is done with the page: give the stream and the queries a moment.
    await fresh.waitForLoadState("networkidle").catch(() => {});
    expect(problems.filter((p) => /418|hydrat|did not match/i.test(p))).toEqual([]);
    await context.close();
  }
});

test.describe("Settings at desktop width", () => {
  test("price cells show their whole provider and model; each checkbox sits on its label's line", async ({ page, dashboard }) => {
    await dashboard.signIn();
    await page.goto("/settings");
    const table = page.getByTestId("price-table");
    await expect(table.getByTestId("price-row").first()).toBeVisible();
    const cut = await table
      .locator('input[aria-label="Provider"], input[aria-label="Model"]')
      .evaluateAll((inputs) => (inputs as HTMLInputElement[]).filter((i) => i.scrollWidth > i.clientWidth).map((i) => i.value));
    expect(cut).toEqual([]);

    const checkboxes = page.locator('form label:has(input[type="checkbox"])');
    expect(await checkboxes.count()).toBeGreaterThan(0);
    // The box's middle lies within the label's first line of text.
    const offLine = await checkboxes.evaluateAll((labels) =>
      labels.flatMap((label) => {
        const box = label.querySelector('input[type="checkbox"]')!.getBoundingClientRect();
        const text = [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
        if (!text) return [];
        const range = document.createRange();
        range.selectNodeContents(text);
        const line = range.getClientRects()[0]!;
        const middle = box.top + box.height / 2;
        return middle >= line.top && middle <= line.bottom ? [] : [label.textContent!.trim()];
      }),
    );
    expect(offLine).toEqual([]);
    await dashboard.screenshot("settings-desktop");
  });
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("Settings and the conversation list fit the screen: nothing scrolls sideways or is cut at the right", async ({
    page,
    dashboard,
    request,
  }) => {
    await dashboard.signIn();
    await groupWith(request, `Phone list ${Date.now()}`, 1);
    await page.goto("/settings");
    await expect(page.getByTestId("price-table")).toBeVisible();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await dashboard.screenshot("settings-phone");

    await page.goto("/");
    const row = page.getByTestId("conversation-row").first();
    await expect(row).toBeVisible();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    // Every cell of a row is on screen: nothing hides past the right edge of the list.
    const hidden = await row
      .locator("td")
      .evaluateAll((cells) =>
        cells.filter((c) => c.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((c) => c.textContent),
      );
    expect(hidden).toEqual([]);
    await dashboard.screenshot("conversations-phone");
  });

  test("the conversation page shows the messages before the charts and controls", async ({ page, dashboard }) => {
    await dashboard.signIn();
    // A chat the agent answered: its charts have turns to draw.
    for (const text of ["first question", "second question"]) await dashboard.simulate(text, { firstName: "Pia", userId: 53_160 });
    await expect(page.getByTestId("sim-timeline")).toContainText("Echo: second question");
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    await expect(page).toHaveURL(/\/conversations\/\d+/);
    await page.reload();
    const newest = page.getByTestId("timeline").getByTestId("message").filter({ hasText: "Echo: second question" });
    await expect(newest).toBeVisible();
    // Opened on a phone, the first screen shows the newest message without scrolling.
    await expect(newest).toBeInViewport();
    await dashboard.screenshot("conversation-phone");
  });
});

test("the reply tree's minimap covers no node", async ({ page, dashboard, request }) => {
  await dashboard.signIn();
  await dashboard.simulate("A question with answers to branch", { firstName: "Mina", userId: 53_013 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: A question");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").filter({ hasText: "A question with answers" }).first().getByRole("link", { name: "Thread" }).click();
  await expect(page).toHaveURL(/\/messages\/\d+$/);
  const rootId = Number(new URL(page.url()).pathname.split("/").pop());
  const reply = async (to: number, text: string): Promise<number> => {
    const response = await request.post(`/api/v1/messages/${to}/reply`, { headers: API, data: { text } });
    expect(response.status()).toBe(201);
    return (await response.json()).messageId;
  };
  // Four answers under the root (the echo and three), the last one a chain five deep: a tree as
  // tall as it is wide, whose second row reaches the top right corner once fitted.
  await reply(rootId, "Answer one");
  await reply(rootId, "Answer two");
  let last = await reply(rootId, "Answer three");
  for (let n = 1; n <= 5; n++) last = await reply(last, `Follow-up ${n}`);
  await page.reload();
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node")).toHaveCount(10);
  // Measured until the fit (once the nodes are in) settles: no node under the minimap.
  const covered = () =>
    tree.evaluate((el) => {
      const map = el.querySelector('[data-testid="rf__minimap"]')!.getBoundingClientRect();
      return [...el.querySelectorAll('[data-testid="tree-node"]')]
        .filter((node) => {
          const b = node.getBoundingClientRect();
          return b.left < map.right && map.left < b.right && b.top < map.bottom && map.top < b.bottom;
        })
        .map((node) => node.textContent);
    });
  await expect.poll(covered).toEqual([]);
  await dashboard.screenshot("tree-minimap");
});

test("after sending, the timeline goes to one's own message; another's message while scrolled up keeps the pill", async ({
  page,
  dashboard,
  request,
}) => {
  await dashboard.signIn();
  const title = `Own send ${Date.now()}`;
  const id = await groupWith(request, title, 30);
  await page.goto(`/conversations/${id}`);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("message").filter({ hasText: `${title} message 30` })).toBeVisible();
  // "message 1" also matches 10–19: the first in the list is the oldest.
  const oldest = timeline
    .getByTestId("message")
    .filter({ hasText: `${title} message 1` })
    .first();
  const readOldest = async () => {
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(oldest).toBeInViewport();
  };
  await readOldest();

  const box = page.getByLabel("Message", { exact: true });
  await box.fill("my own answer");
  await box.press("Enter");
  await expect(timeline.getByTestId("message").filter({ hasText: "my own answer" })).toBeInViewport();
  await expect(page.getByTestId("new-messages-pill")).toHaveCount(0);

  // Someone else's message while the operator reads old ones: counted on the pill, the view stays.
  await readOldest();
  const sent = await request.post(`/api/v1/conversations/${id}/messages`, { headers: API, data: { text: "from a colleague" } });
  expect(sent.status()).toBe(201);
  await expect(page.getByTestId("new-messages-pill")).toHaveText(/1 new message/);
  await expect(oldest).toBeInViewport();
});

test("the history's beginning is said at the top of the timeline, inside it", async ({ page, dashboard, request }) => {
  await dashboard.signIn();
  const title = `Edge ${Date.now()}`;
  const id = await groupWith(request, title, 2);
  await page.goto(`/conversations/${id}`);
  const timeline = page.getByTestId("timeline");
  const edge = timeline.getByTestId("history-edge");
  await expect(edge).toHaveText("Beginning of the conversation");
  const first = timeline.getByTestId("message").first();
  expect((await edge.boundingBox())!.y).toBeLessThan((await first.boundingBox())!.y);
});

test("a file-only message shows its file in the list's preview", async ({ page, dashboard, request }) => {
  await dashboard.signIn();
  const title = `File preview ${Date.now()}`;
  const chat = { id: -1_005_310_000_000 - (Date.now() % 1_000_000), title };
  await postToGroup(request, chat, {
    document: {
      file_id: "BQACAgIAAxkBAAIBfile53",
      file_unique_id: "AgADfile53",
      file_name: "invoice.pdf",
      mime_type: "application/pdf",
      file_size: 1234,
    },
  });
  const id = await conversationId(request, title);
  await page.goto("/");
  const row = page.locator(`[data-conversation-id="${id}"]`);
  await expect(row.getByTestId("last-message-text")).toHaveText("📎 invoice.pdf");
});

test("an unknown conversation says it is not found at once, without retrying", async ({ page, dashboard }) => {
  await dashboard.signIn();
  let reads = 0;
  page.on("request", (r) => {
    if (r.url().includes("/api/v1/conversations/987654321/messages")) reads++;
  });
  await page.goto("/conversations/987654321");
  await expect(page.locator("main").getByRole("alert")).toContainText("not found");
  // Asked once: a 404 says the same the second time (it was retried, and polled on).
  expect(reads).toBe(1);
});

test("the prompt inspector names its usage counters in words", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("count my tokens", { firstName: "Tove", userId: 53_016 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: count my tokens");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").filter({ hasText: "Echo: count my tokens" }).getByRole("link", { name: "Prompt" }).click();
  await expect(page).toHaveURL(/\/turns\/\d+/);
  await expect(page.getByText("Input tokens", { exact: true })).toBeVisible();
  await expect(page.getByText(/CachedInput/)).toHaveCount(0);
});

test("during a takeover the agent switch and the handoff say the same", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("a person please [handoff]", { firstName: "Ulla", userId: 53_017 });
  await expect(page.getByTestId("sim-timeline")).toContainText("a person from our team will reply here soon");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  const control = page.getByTestId("handoff-control");
  await control.getByRole("button", { name: "Take over" }).click();
  await expect(control.getByTestId("handoff-state")).toContainText("the agent is silent");
  await expect(page.getByRole("button", { name: /^Agent:/ })).not.toHaveText("Agent: on");
  await expect(page.getByRole("button", { name: /^Agent:/ })).toContainText("silent");
  await control.getByRole("button", { name: "Hand back" }).click();
  await expect(page.getByRole("button", { name: /^Agent:/ })).toHaveText("Agent: on");
});

test("a note is signed with its author's display name, as their messages are", async ({ page, dashboard, request }) => {
  const operators = (await (await request.get("/api/v1/operators", { headers: API })).json()) as {
    operators: { id: number; name: string }[];
  };
  const admin = operators.operators.find((o) => o.name === "admin")!.id;
  const rename = (displayName: string | null) => request.patch(`/api/v1/operators/${admin}`, { headers: API, data: { displayName } });
  expect((await rename("Ada from Support")).status()).toBe(200);
  try {
    await dashboard.signIn();
    const id = await groupWith(request, `Note name ${Date.now()}`, 1);
    await page.goto(`/conversations/${id}`);
    await page.getByRole("radio", { name: "Note for the team" }).check();
    const box = page.getByLabel("Internal note", { exact: true });
    await box.fill("checked the order");
    await box.press("Enter");
    const note = page.getByTestId("timeline").getByTestId("note").filter({ hasText: "checked the order" });
    await expect(note.locator(".meta strong")).toHaveText("Ada from Support");
    await expect(page.getByTestId("contact-notes")).toContainText("— Ada from Support");
  } finally {
    await rename(null);
  }
});
