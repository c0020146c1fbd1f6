import type { APIRequest, APIRequestContext, Page } from "@playwright/test";
import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { Dashboard, expect, test } from "./fixtures";
import { startSandboxServer } from "./support/sandbox-server";

/*
 * Small console defects left from issue 53: each test here failed before its fix.
 * Layout is asserted as measured geometry, not as pixels.
 */

const API = { authorization: "Bearer e2e-api-token-0123456789" };
// From the clock: a retried worker reloads this file, and a reused update id would be dropped as a duplicate.
let updateId = 54_000_000 + (Date.now() % 10_000_000) * 10;
let messageId = 0;
const LONG_NAME = "Maximiliana Wilhelmina von Hohenzollern-Sigmaringen";

/** A group conversation (the bot reads it, does not answer) with one user message; its id. */
async function groupConversation(request: APIRequestContext, title: string): Promise<number> {
  const chat = { id: -1_005_400_000_000 - (Date.now() % 1_000_000), title, type: "supergroup" };
  const response = await request.post("/api/webhooks/telegram", {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: {
      update_id: ++updateId,
      message: {
        message_id: ++messageId,
        from: { id: 9_540_001, is_bot: false, first_name: "Noor" },
        chat,
        date: Math.floor(Date.now() / 1000),
        text: `${title} hello`,
      },
    },
  });
  expect(response.status()).toBe(200);
  const list = await request.get(`/api/v1/conversations?search=${encodeURIComponent(title)}`, { headers: API });
  const { conversations } = (await list.json()) as { conversations: { id: number; title: string }[] };
  return conversations.find((c) => c.title === title)!.id;
}

/** An agent who joined with this display name (invited and accepted through the API): their sign-in. */
async function joinAgent(request: APIRequestContext, requests: APIRequest, displayName: string) {
  const invited = await request.post("/api/v1/operators", { headers: API, data: { role: "agent" } });
  expect(invited.status()).toBe(201);
  const { token } = (await invited.json()) as { token: string };
  // A request context of its own: accepting signs the invitee in.
  const invitee = await requests.newContext({ baseURL: test.info().project.use.baseURL });
  const name = `joined${Date.now() % 1_000_000}`;
  const password = "joined-password-123";
  const accepted = await invitee.post("/api/auth/invitation", { data: { token, name, displayName, password } });
  expect(accepted.ok()).toBe(true);
  await invitee.dispose();
  return { name, password };
}

async function ensureLongNamedOperator(request: APIRequestContext, requests: APIRequest) {
  const { operators } = (await (await request.get("/api/v1/operators", { headers: API })).json()) as {
    operators: { displayName: string | null }[];
  };
  if (!operators.some((o) => o.displayName === LONG_NAME)) await joinAgent(request, requests, LONG_NAME);
}

/** How far the page is wider than the viewport (0: nothing scrolls sideways). */
const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Whether the select is at least as wide as its chosen option's text (measured in its own font). */
const showsWholeChoice = (page: Page) =>
  page.getByTestId("assignee").evaluate((select: HTMLSelectElement) => {
    const style = getComputedStyle(select);
    const context = document.createElement("canvas").getContext("2d")!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = context.measureText(select.selectedOptions[0].text).width;
    const inner = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
    return { text: Math.ceil(text), inner: Math.floor(inner), title: select.title };
  });

test("a dataset run's heading agrees with its counts: a run with the settings as they are does not say 'no changes'", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  await dashboard.simulate("headingotter one", { firstName: "Hed", userId: 54_101 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: headingotter one");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByRole("link", { name: "Replay its turns…" }).click();
  await page.getByLabel("Dataset name").fill("headingotter set");
  await page.getByRole("button", { name: "Create dataset" }).click();
  const panel = page.getByTestId("dataset-panel");
  await panel.getByRole("button", { name: "Run dataset" }).click();
  const run = panel.getByTestId("run-view");
  await expect(run.getByTestId("run-progress")).toHaveText(/^done: 1 of 1 turns/);
  const heading = run.getByRole("heading", { level: 3 });
  await expect(heading).toContainText("settings unchanged");
  await expect(heading).not.toContainText(/no changes?/);
  page.once("dialog", (dialog) => dialog.accept());
  await panel.getByRole("button", { name: "Delete dataset" }).click();
  await expect(page.getByTestId("datasets")).not.toContainText("headingotter set");
});

test("the sidebar and a handoff the operator asks for name them by their display name", async ({
  page,
  dashboard,
  request,
  playwright,
}) => {
  // A name no other spec filters rows by (handoff.spec.ts finds its row by "Hana" in the shared inbox).
  const displayName = `Display Dorota ${Date.now() % 1_000_000}`;
  const { name, password } = await joinAgent(request, playwright.request, displayName);
  const id = await groupConversation(request, `Handoff by name ${Date.now()}`);
  await dashboard.signIn(name, password);
  await expect(page.getByRole("navigation", { name: "Main" })).toContainText(`Signed in as ${displayName} (agent)`);
  await page.goto(`/conversations/${id}`);
  await page.getByRole("button", { name: "Hand off to a human" }).click();
  await expect(page.getByTestId("handoff-state")).toHaveText(`waiting for a human: requested by ${displayName}`);
});

test("the assignee select shows a long display name whole, with the name as its title", async ({
  page,
  dashboard,
  request,
  playwright,
}) => {
  await ensureLongNamedOperator(request, playwright.request);
  const id = await groupConversation(request, `Assignee wide ${Date.now()}`);
  await dashboard.signIn();
  await page.goto(`/conversations/${id}`);
  const select = page.getByTestId("assignee");
  await expect(select.locator("option", { hasText: LONG_NAME })).toHaveCount(1);
  await select.selectOption({ label: LONG_NAME });
  await expect(select).toHaveAttribute("title", LONG_NAME);
  const measured = await showsWholeChoice(page);
  expect(measured.inner).toBeGreaterThanOrEqual(measured.text);
  await dashboard.screenshot("assignee-wide");
});

test.describe("at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("a long assignee name neither cuts the select's title nor pushes the page sideways", async ({
    page,
    dashboard,
    request,
    playwright,
  }) => {
    await ensureLongNamedOperator(request, playwright.request);
    const id = await groupConversation(request, `Assignee phone ${Date.now()}`);
    await dashboard.signIn();
    await page.goto(`/conversations/${id}`);
    const select = page.getByTestId("assignee");
    await select.selectOption({ label: LONG_NAME });
    await expect(select).toHaveAttribute("title", LONG_NAME);
    const box = (await select.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await dashboard.screenshot("assignee-phone");
  });
});

test("a file-only message quoted above the bot's answer shows the file, not an empty quote", async ({ browser }) => {
  test.setTimeout(150_000);
  const { base, stop } = await startSandboxServer("e2e-console-details");
  try {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const dashboard = new Dashboard(page);
    await dashboard.signIn();
    await page.goto("/simulator");
    await page.getByLabel("User's first name").fill("Walker");
    await page.getByLabel("User id").fill("54202");
    await page.getByLabel("Attach").selectOption("document");
    await page.getByLabel(/^File to send as a file/).setInputFiles({
      name: "invoice.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("%PDF-1.4\n%%EOF\n"),
    });
    await page.getByRole("button", { name: /^Send as/ }).click();
    await expect(page.getByRole("status")).toContainText("Delivered: stored");
    const quote = page.getByTestId("sim-timeline").getByTestId("sim-reply-quote").first();
    await expect(quote).toBeVisible({ timeout: 30_000 });
    await expect(quote).toHaveText("↩ Walker: 📎 invoice.pdf");
    await context.close();
  } finally {
    await stop();
  }
});
