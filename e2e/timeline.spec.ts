import type { APIRequestContext, Page } from "@playwright/test";
import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { expect, test } from "./fixtures";

const API = { authorization: "Bearer e2e-api-token-0123456789" };
const member = { id: 9_400_001, is_bot: false, first_name: "Ines" };
// From the clock: a retried worker reloads this file, and a reused update id would be dropped as a duplicate.
let updateId = 94_000_000 + (Date.now() % 10_000_000) * 10;

/** A group chat the bot reads but does not answer (not addressed): its history is only what the test posts. */
function groupChat(id: number, title: string) {
  const chat = { id, title, type: "supergroup" };
  let messageId = 0;
  const post = async (request: APIRequestContext, text: string, extra: Record<string, unknown> = {}) => {
    const message = { message_id: ++messageId, from: member, chat, date: Math.floor(Date.now() / 1000), text, ...extra };
    const response = await request.post("/api/webhooks/telegram", {
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
      data: { update_id: ++updateId, message },
    });
    expect(response.status()).toBe(200);
    return message;
  };
  return { chat, post };
}

async function conversationId(request: APIRequestContext, title: string) {
  const response = await request.get(`/api/v1/conversations?search=${encodeURIComponent(title)}`, { headers: API });
  const { conversations } = (await response.json()) as { conversations: { id: number; title: string }[] };
  return conversations.find((c) => c.title === title)!.id;
}

const label = (n: number) => `history ${String(n).padStart(4, "0")}`;
const message = (page: Page, text: string) => page.getByTestId("timeline").getByTestId("message").filter({ hasText: text });

/** 230 messages (more than two pages), the newest a reply to the third. */
async function seedLongHistory(request: APIRequestContext, id: number, title: string) {
  const { post } = groupChat(id, title);
  let third: object | undefined;
  for (let n = 1; n <= 229; n++) {
    const sent = await post(request, label(n));
    if (n === 3) third = sent;
  }
  await post(request, "the newest, answering the third", { reply_to_message: third });
  return conversationId(request, title);
}

async function scrollToTopUntilStart(page: Page) {
  const timeline = page.getByTestId("timeline");
  for (let i = 0; i < 30; i++) {
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
    if (await page.getByTestId("history-edge").filter({ hasText: "Beginning of the conversation" }).isVisible()) break;
    await page.waitForTimeout(200);
  }
  await expect(page.getByTestId("history-edge")).toHaveText("Beginning of the conversation");
  await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
}

/**
 * On a phone the charts come first: the page is scrolled to the timeline's end, where the
 * newest message must be. Again until it shows: a chart drawn after the scroll moves the
 * timeline down, and "if needed" did nothing while any of the timeline showed.
 */
async function showTimelineEnd(page: Page) {
  await expect(async () => {
    await page.getByTestId("timeline").evaluate((el) => el.scrollIntoView({ block: "end" }));
    await expect(message(page, "the newest, answering the third")).toBeInViewport({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

async function checkLongTimeline(
  page: Page,
  dashboard: { signIn(): Promise<void>; screenshot(name: string): Promise<void> },
  id: number,
  shot: string,
) {
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  // Opens at the newest message, and only what is near the view is in the DOM.
  await showTimelineEnd(page);
  await expect(message(page, label(1))).toHaveCount(0);
  expect(await page.getByTestId("message").count()).toBeLessThan(60);
  await dashboard.screenshot(`${shot}-newest`);

  // The reply arrow jumps to the original, two pages back, and highlights it.
  await message(page, "the newest, answering the third").getByTestId("reply-arrow").click();
  const original = message(page, label(3));
  await expect(original).toBeInViewport();
  await expect(original).toHaveClass(/highlight/);
  await dashboard.screenshot(`${shot}-jumped`);

  // A fresh page loads older pages as the operator scrolls up, to the first message.
  await page.reload();
  await showTimelineEnd(page);
  await scrollToTopUntilStart(page);
  await expect(message(page, label(1))).toBeInViewport();
  expect(await page.getByTestId("message").count()).toBeLessThan(60);
}

test("the timeline opens at the newest, loads older pages on scroll up, and jumps to a quoted original", async ({
  page,
  dashboard,
  request,
}) => {
  test.setTimeout(180_000);
  const id = await seedLongHistory(request, -1_009_400_000_001, "E2E Long History");
  await checkLongTimeline(page, dashboard, id, "timeline");
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test("the timeline scrolls, pages and jumps on a phone", async ({ page, dashboard, request }) => {
    test.setTimeout(180_000);
    const id = await seedLongHistory(request, -1_009_400_000_002, "E2E Long History Phone");
    await checkLongTimeline(page, dashboard, id, "timeline-phone");
    // Nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});

test("the composer sends a plain message with Enter, Shift+Enter makes a new line", async ({ page, dashboard, request }) => {
  const { post } = groupChat(-1_009_400_000_003, "E2E Composer");
  await post(request, "is anyone there?");
  const id = await conversationId(request, "E2E Composer");
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  await expect(message(page, "is anyone there?")).toBeVisible();
  const box = page.getByLabel("Message", { exact: true });
  await box.fill("first line");
  await box.press("Shift+Enter");
  await box.pressSequentially("second line");
  await expect(box).toHaveValue("first line\nsecond line");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const sent = message(page, "second line");
  await expect(sent.locator(".text")).toHaveText("first line\nsecond line");
  await expect(sent.getByTestId("message-status")).toHaveText("sent");
  await expect(sent.getByTestId("reply-arrow")).toHaveCount(0);
  // One's own message at the bottom is in view: no "new message" pill for it.
  await expect(page.getByTestId("new-messages-pill")).toHaveCount(0);
  // It went out through the channel (the sandbox Telegram), recorded on a done envelope with the platform's id.
  const envelopes = (await (await request.get("/api/v1/envelopes?from=operator:admin", { headers: API })).json()) as {
    envelopes: { text: string; status: string; metadata: { platformMessageId?: string } }[];
  };
  const envelope = envelopes.envelopes.find((e) => e.text === "first line\nsecond line");
  expect(envelope?.status).toBe("done");
  expect(envelope?.metadata.platformMessageId).toBeTruthy();

  // The route is CSRF-protected: the session alone (a cross-site form) sends nothing.
  const forged = await page.request.post(`/api/v1/conversations/${id}/messages`, { data: { text: "forged" } });
  expect(forged.status()).toBe(403);
  // The event stream needs a session or the token too.
  expect((await request.get("/api/v1/events", { headers: { cookie: "" } })).status()).toBe(401);

  // A threaded reply from the same box.
  await message(page, "is anyone there?")
    .getByRole("button", { name: /^Reply to message/ })
    .click();
  await box.fill("yes, an operator");
  await box.press("Enter");
  await expect(message(page, "yes, an operator").getByTestId("reply-arrow")).toContainText("is anyone there?");
  await dashboard.screenshot("composer");
});

test("a message arriving while the page is open shows without a reload; scrolled up, a pill counts it", async ({
  page,
  dashboard,
  request,
}) => {
  const { post } = groupChat(-1_009_400_000_004, "E2E Live");
  for (let n = 1; n <= 40; n++) await post(request, `live ${String(n).padStart(2, "0")}`);
  const id = await conversationId(request, "E2E Live");
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  await page.getByTestId("timeline").scrollIntoViewIfNeeded();
  await expect(message(page, "live 40")).toBeInViewport();
  // No navigation from here on: the update must come over the event stream (polling is 30 s while it is open).
  let navigations = 0;
  page.on("framenavigated", () => navigations++);

  await post(request, "arrived while watching");
  await expect(message(page, "arrived while watching")).toBeInViewport({ timeout: 8_000 });
  await expect(page.getByTestId("new-messages-pill")).toHaveCount(0);

  // A send through another route (the API, as an agent or a second operator would) reaches this page too.
  expect(
    (await request.post(`/api/v1/conversations/${id}/messages`, { headers: API, data: { text: "sent from elsewhere" } })).status(),
  ).toBe(201);
  await expect(message(page, "sent from elsewhere")).toBeInViewport({ timeout: 8_000 });

  await page.getByTestId("timeline").evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(message(page, "live 01")).toBeInViewport();
  await post(request, "arrived while reading old ones");
  const pill = page.getByTestId("new-messages-pill");
  await expect(pill).toHaveText(/1 new message/, { timeout: 8_000 });
  await expect(message(page, "live 01")).toBeInViewport();
  await pill.click();
  await expect(message(page, "arrived while reading old ones")).toBeInViewport();
  expect(navigations).toBe(0);
});

test("search finds what was said and opens the timeline at that message", async ({ page, dashboard, request }) => {
  test.setTimeout(120_000);
  const { post } = groupChat(-1_009_400_000_005, "E2E Search");
  await post(request, "the <b>zebracorn</b> shipment left the warehouse");
  // More than a page after it: the timeline must load back to it.
  for (let n = 1; n <= 130; n++) await post(request, `later chatter ${n}`);
  await dashboard.signIn();
  await page.getByRole("link", { name: "Search" }).click();
  await page.getByLabel("Search message text").fill('"zebracorn* (');
  await page.getByRole("button", { name: "Search" }).click();
  // A query with stray syntax still finds the words it has.
  const result = page.getByTestId("search-result");
  await expect(result).toHaveCount(1);
  await expect(result.locator("mark")).toHaveText("zebracorn");
  // The message's own markup shows as text, never as an element.
  await expect(result).toContainText("<b>");
  await expect(result.locator("b")).toHaveCount(0);
  await dashboard.screenshot("search-results");
  await result.getByRole("link").click();
  await expect(page).toHaveURL(/\/conversations\/\d+\?message=\d+/);
  await page.getByTestId("timeline").scrollIntoViewIfNeeded();
  const target = message(page, "shipment left the warehouse");
  await expect(target).toBeInViewport();
  await expect(target).toHaveClass(/highlight/);
  await dashboard.screenshot("search-jumped");

  // Nonsense is an empty result, not an error.
  await page.goto(`/search?q=${encodeURIComponent('"')}`);
  await expect(page.getByText("No message matches")).toBeVisible();
});

test("the composer sends once however fast Enter is pressed, and refuses blank text", async ({ page, dashboard, request }) => {
  const { post } = groupChat(-1_009_400_000_006, "E2E Double Enter");
  await post(request, "ping");
  const id = await conversationId(request, "E2E Double Enter");
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  await expect(message(page, "ping")).toBeVisible();
  const box = page.getByLabel("Message", { exact: true });
  // Blank text sends nothing (the button stays off, Enter does nothing).
  await box.fill("   \n  ");
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeDisabled();
  await box.press("Enter");
  // Enter while an input method composes (Chromium's isComposing, Safari's keyCode 229) is not a send.
  await box.fill("日本");
  await box.evaluate((el) => {
    el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", isComposing: true, bubbles: true, cancelable: true }));
    el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 229, bubbles: true, cancelable: true }));
  });
  await expect(box).toHaveValue("日本");
  await box.fill("only once please");
  // Two Enters before React re-renders (a key repeat, a busy tab): one send.
  await box.evaluate((el) => {
    for (let i = 0; i < 2; i++)
      el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, bubbles: true, cancelable: true }));
  });
  await expect(message(page, "only once please")).toHaveCount(1);
  await expect(message(page, "only once please").getByTestId("message-status")).toHaveText("sent");
  await page.waitForTimeout(1_000);
  const timeline = (await (await request.get(`/api/v1/conversations/${id}/messages`, { headers: API })).json()) as {
    messages: { text: string }[];
  };
  expect(timeline.messages.map((m) => m.text).filter((t) => t === "only once please")).toHaveLength(1);
  expect(timeline.messages.map((m) => m.text.trim()).filter((t) => t === "")).toHaveLength(0);
  expect(timeline.messages.map((m) => m.text).filter((t) => t === "日本")).toHaveLength(0);
});

test("a message with markup found by search shows as text and runs nothing", async ({ page, dashboard, request }) => {
  const { post } = groupChat(-1_009_400_000_007, "E2E Search XSS");
  await post(request, "<img src=x onerror=alert(1)> quokkaburst <script>alert(2)</script>");
  await post(request, "emoji 🦘 quokkaburst and 日本語 text");
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  await dashboard.signIn();
  await page.goto(`/search?q=${encodeURIComponent("quokkaburst <img src=x onerror=alert(1)>")}`);
  // Every word must match: the query's own markup adds "img", "src", "x", … so only the first message matches.
  const results = page.getByTestId("search-result");
  await expect(results).toHaveCount(1);
  await expect(results).toContainText("<img src=x onerror=alert(1)>");
  await expect(results.locator("img, script")).toHaveCount(0);
  await expect(page.getByText("No message matches")).toHaveCount(0);
  await page.goto(`/search?q=${encodeURIComponent("🦘 quokkaburst")}`);
  await expect(results).toHaveCount(2);
  await expect(page.locator("mark").first()).toHaveText("quokkaburst");
  await page.goto(`/search?q=${encodeURIComponent("日本語")}`);
  await expect(results).toHaveCount(1);
  expect(dialogs).toBe(0);
  expect(await page.locator("main img").count()).toBe(0);
});

test("a deep link to a message that is not in the conversation says so and opens at the newest", async ({ page, dashboard, request }) => {
  const { post } = groupChat(-1_009_400_000_008, "E2E Stale Link");
  for (let n = 1; n <= 60; n++) await post(request, `stale ${String(n).padStart(2, "0")}`);
  const other = groupChat(-1_009_400_000_009, "E2E Stale Link Other");
  await other.post(request, "in another conversation");
  const id = await conversationId(request, "E2E Stale Link");
  const otherId = await conversationId(request, "E2E Stale Link Other");
  const foreign = (await (await request.get(`/api/v1/conversations/${otherId}/messages`, { headers: API })).json()) as {
    messages: { id: number }[];
  };
  await dashboard.signIn();
  for (const target of [foreign.messages[0]!.id, 2_000_000_000]) {
    await page.goto(`/conversations/${id}?message=${target}`);
    await expect(page.getByText("The original message is not in this conversation's history.")).toBeVisible();
    await page.getByTestId("timeline").scrollIntoViewIfNeeded();
    await expect(message(page, "stale 60")).toBeInViewport();
  }
});

test("a send the server refuses keeps the text in the box to fix, and the next Enter sends it once", async ({
  page,
  dashboard,
  request,
}) => {
  const { post } = groupChat(-1_009_400_000_010, "E2E Refused");
  await post(request, "hello?");
  const id = await conversationId(request, "E2E Refused");
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  await expect(message(page, "hello?")).toBeVisible();
  const box = page.getByLabel("Message", { exact: true });
  // Near the limit the box counts characters.
  await box.fill("y".repeat(4_900));
  await expect(page.getByTestId("composer-count")).toHaveText("4,900 / 5,000 characters");
  // The first send is refused (as a too-long or otherwise invalid text would be).
  let refused = 0;
  await page.route(`**/api/v1/conversations/${id}/messages`, async (route) => {
    if (route.request().method() !== "POST" || refused > 0) return route.fallback();
    refused++;
    await route.fulfill({
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "bad_request", message: "text: too long" } }),
    });
  });
  await box.fill("a reply worth keeping");
  await box.press("Enter");
  await expect(page.getByTestId("composer-failure")).toContainText("text: too long");
  await expect(box).toHaveValue("a reply worth keeping");
  await box.press("Enter");
  await expect(page.getByTestId("composer-failure")).toHaveCount(0);
  await expect(message(page, "a reply worth keeping").getByTestId("message-status")).toHaveText("sent");
  await expect(message(page, "a reply worth keeping")).toHaveCount(1);
  expect(refused).toBe(1);
});
