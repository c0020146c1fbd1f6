import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const auth = { authorization: "Bearer e2e-api-token-0123456789" };

async function replyVia(request: APIRequestContext, messageId: number, text: string): Promise<number> {
  const response = await request.post(`/api/v1/messages/${messageId}/reply`, { headers: auth, data: { text } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()).messageId;
}

/** The viewport's zoom, read from React Flow's transform. */
async function zoomOf(page: Page): Promise<number> {
  return page.locator(".react-flow__viewport").evaluate((el) => new DOMMatrixReadOnly(getComputedStyle(el).transform).a);
}

const LONG = `Branch root with a long question that runs well past what a node can show: ${"lorem ipsum ".repeat(20)}END-OF-ROOT`;

/** A user message, the agent's echo, and operator replies making a fork point: root → [echo, one, two → deep]. */
async function branchingThread(page: Page, request: APIRequestContext, dashboard: import("./fixtures").Dashboard, userId: number) {
  await dashboard.simulate(LONG, { firstName: "Bea", userId });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Branch root");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").filter({ hasText: "END-OF-ROOT" }).first().getByRole("link", { name: "Thread" }).click();
  await expect(page).toHaveURL(/\/messages\/\d+$/);
  const rootId = Number(new URL(page.url()).pathname.split("/").pop());
  await replyVia(request, rootId, "Side answer one");
  const two = await replyVia(request, rootId, "Side answer two");
  const deep = await replyVia(request, two, "Deep answer under two");
  return { rootId, two, deep };
}

test("the reply tree zooms, fits, collapses, reads a branch with sibling switchers and opens the timeline at a message", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  const { rootId, deep } = await branchingThread(page, request, dashboard, 7070);
  await page.goto(`/messages/${rootId}`);
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node")).toHaveCount(5);
  // Every reply drawn as an edge to its target (the tree's own edge layer).
  await expect(tree.getByTestId("tree-edges")).toHaveAttribute("data-edges", "4");

  // A node shows a truncated text inside its box; the panel shows it in full.
  const rootNode = tree.getByRole("treeitem", { name: /^Bea: Branch root/ });
  const box = (await rootNode.boundingBox())!;
  expect(box.height).toBeLessThan(100);
  await rootNode.click();
  await expect(page.getByTestId("message-full-text")).toContainText("END-OF-ROOT");
  await expect(rootNode).not.toContainText("END-OF-ROOT", { useInnerText: true });
  await dashboard.screenshot("reply-tree");

  // Zoom in, then fit: every node is back in view.
  const before = await zoomOf(page);
  await page.getByRole("button", { name: "Zoom In" }).click();
  await expect.poll(() => zoomOf(page)).toBeGreaterThan(before);
  await page.getByRole("button", { name: "Zoom In" }).click();
  await page.getByRole("button", { name: "Zoom In" }).click();
  await page.getByRole("button", { name: "Fit View" }).click();
  for (const node of await tree.getByTestId("tree-node").all()) await expect(node).toBeInViewport();
  await expect(page.getByRole("img", { name: "Mini Map" })).toBeVisible();

  // Collapse the root: one node left, saying how many are hidden; expand brings them back.
  await rootNode.getByRole("button", { name: "Collapse replies" }).click();
  await expect(tree.getByTestId("tree-node")).toHaveCount(1);
  await rootNode.getByRole("button", { name: "Expand 4 replies" }).click();
  await expect(tree.getByTestId("tree-node")).toHaveCount(5);

  // Branch view through the deepest reply, switching sibling at the fork point.
  await tree.getByRole("treeitem", { name: "Deep answer under two" }).click();
  await page.getByRole("tab", { name: "Branch" }).click();
  const steps = page.getByTestId("branch-step");
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(2)).toContainText("Deep answer under two");
  await expect(steps.nth(1).getByRole("group", { name: "Branches here" })).toContainText("3/3");
  await dashboard.screenshot("branch-view");
  await steps.nth(1).getByRole("button", { name: "Previous branch" }).click();
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(1)).toContainText("Side answer one");
  await expect(steps.nth(1).getByRole("group", { name: "Branches here" })).toContainText("2/3");
  await steps.nth(1).getByRole("button", { name: "Previous branch" }).click();
  await expect(steps.nth(1)).toContainText("Echo: Branch root");
  await expect(steps.nth(1).getByRole("button", { name: "Previous branch" })).toBeDisabled();

  // Back to the tree and open the timeline at the deep reply.
  await page.getByRole("tab", { name: "Tree" }).click();
  await tree.getByRole("treeitem", { name: "Deep answer under two" }).click();
  const open = page.getByTestId("message-details").getByRole("link", { name: "Open in timeline" });
  await expect(open).toHaveAttribute("href", new RegExp(`^/conversations/\\d+\\?message=${deep}$`));
  await open.click();
  await expect(page).toHaveURL(new RegExp(`/conversations/\\d+\\?message=${deep}$`));
});

test("at phone width the tree takes the full width and the selected message opens as a bottom sheet", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  const { rootId } = await branchingThread(page, request, dashboard, 7171);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/messages/${rootId}`);
  const tree = page.getByTestId("thread-tree");
  await expect(tree.getByTestId("tree-node").first()).toBeVisible();
  expect((await tree.boundingBox())!.width).toBeGreaterThan(340);
  const details = page.getByTestId("message-details");
  await expect(details).toBeHidden();
  await tree.getByRole("treeitem", { name: "Side answer two" }).click();
  await expect(details).toBeVisible();
  const sheet = (await page.getByRole("complementary", { name: "Selected message" }).boundingBox())!;
  expect(Math.round(sheet.y + sheet.height)).toBe(844);
  expect(sheet.width).toBe(390);
  await expect(details).toContainText("Side answer two");
  await dashboard.screenshot("reply-tree-phone");
  await page.getByRole("button", { name: "Close details" }).click();
  await expect(details).toBeHidden();
});

test("the envelopes page pages past 100 rows, filters by address and conversation, and composes with field errors", async ({
  page,
  request,
  dashboard,
}) => {
  await dashboard.signIn();
  for (let batch = 0; batch < 13; batch++) {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request
          .post("/api/v1/envelopes", {
            headers: auth,
            data: { from: "agent:main", to: "agent:pager", text: `paged ${batch * 10 + i}`, deliverAt: "+1d" },
          })
          .then((r) => expect(r.status()).toBe(201)),
      ),
    );
  }
  await dashboard.simulate("envelope filter check", { firstName: "Fil", userId: 7272 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: envelope filter check");

  await page.goto("/envelopes");
  const rows = page.getByTestId("envelope-row");
  const filters = page.getByRole("search", { name: "Filter envelopes" });
  await filters.getByLabel("To", { exact: true }).fill("agent:pager");
  await expect(rows).toHaveCount(100);
  await page.getByRole("button", { name: "Load older envelopes" }).click();
  await expect(rows).toHaveCount(130);
  await expect(rows.last()).toContainText("paged 0");
  await expect(page.getByRole("button", { name: "Load older envelopes" })).toHaveCount(0);

  // Conversation filter: only that chat's envelopes.
  await filters.getByLabel("To", { exact: true }).fill("");
  await filters.getByLabel("Address").fill("channel:telegram:7272");
  const chatLink = rows.first().getByRole("link", { name: "chat" });
  const conversationId = (await chatLink.getAttribute("href"))!.split("/").pop()!;
  await filters.getByLabel("Address").fill("");
  await filters.getByLabel("Conversation").fill(conversationId);
  await expect(rows.filter({ hasText: "envelope filter check" }).first()).toBeVisible();
  await expect(rows.filter({ hasText: "paged" })).toHaveCount(0);
  for (const link of await rows.getByRole("link", { name: "chat" }).all())
    await expect(link).toHaveAttribute("href", `/conversations/${conversationId}`);

  // Compose: the browser checks with the API's schema and names the field.
  await page.getByText("Compose an envelope").click();
  const form = page.getByRole("form", { name: "Compose an envelope" });
  await expect(form.getByLabel("From", { exact: true })).toHaveValue("operator:admin");
  await form.getByLabel("To", { exact: true }).fill("telegram 42");
  await form.getByLabel("Text").fill("composed in the dashboard");
  await form.getByLabel("Deliver at").fill("soon");
  await form.getByRole("button", { name: "Send envelope" }).click();
  await expect(form.getByTestId("to-error")).toContainText('invalid address "telegram 42"');
  await expect(form.getByTestId("deliverAt-error")).toContainText("invalid deliverAt");
  await expect(form.getByLabel("To", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await dashboard.screenshot("envelope-compose-errors");
  await form.getByLabel("To", { exact: true }).fill("agent:pager");
  await form.getByLabel("Deliver at").fill("+2h");
  await form.getByRole("button", { name: "Send envelope" }).click();
  await expect(form.getByRole("status")).toContainText(/Envelope #\d+ queued/);
  await expect(form.getByTestId("to-error")).toHaveCount(0);
  await filters.getByLabel("Conversation").fill("");
  await filters.getByLabel("To", { exact: true }).fill("agent:pager");
  await expect(rows.first()).toContainText("composed in the dashboard");
  // Shown by name; the address is on hover.
  await expect(rows.first().getByTestId("envelope-from")).toHaveText("admin");
  await expect(rows.first().getByTestId("envelope-from")).toHaveAttribute("title", "operator:admin");
});

test("the prompt inspector opens from the agent's answer, steps to the previous and next turn, and copies the turn as JSON", async ({
  page,
  context,
  dashboard,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await dashboard.signIn();
  await dashboard.simulate("inspector first", { firstName: "Ida", userId: 7373 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: inspector first");
  await dashboard.simulate("inspector second", { firstName: "Ida", userId: 7373 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: inspector second");

  // From the agent's answer in the reply tree (the answer has no turn of its own: it is the turn's output).
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByTestId("message").filter({ hasText: "Echo: inspector second" }).first().getByRole("link", { name: "Thread" }).click();
  await page
    .getByTestId("thread-tree")
    .getByRole("treeitem", { name: /Echo: inspector second/ })
    .click();
  await page.getByTestId("message-details").getByRole("link", { name: "Prompt inspector" }).click();
  await expect(page).toHaveURL(/\/turns\/\d+$/);
  const second = Number(new URL(page.url()).pathname.split("/").pop());
  await expect(page.getByTestId("prompt-message").last()).toContainText("inspector second");
  await expect(page.getByTestId("turn-latency")).toContainText(/\d+ ms/);
  await expect(page.getByRole("link", { name: "Next turn ›" })).toHaveCount(0);

  await page.getByRole("link", { name: "‹ Previous turn" }).click();
  await expect(page).not.toHaveURL(new RegExp(`/turns/${second}$`));
  const first = Number(new URL(page.url()).pathname.split("/").pop());
  expect(first).toBeLessThan(second);
  await expect(page.getByTestId("prompt-message").last()).toContainText("inspector first");
  await page.getByRole("button", { name: "Copy as JSON" }).click();
  await expect(page.getByRole("status")).toContainText("Copied.");
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  expect(copied).toMatchObject({ id: first, model: expect.any(String) });
  expect(copied.system).toContain("call the `reply` tool");
  await dashboard.screenshot("prompt-inspector-nav");
  await page.getByRole("link", { name: "Next turn ›" }).click();
  await expect(page).toHaveURL(new RegExp(`/turns/${second}$`));
  await page.getByRole("main").getByRole("link", { name: "Conversation", exact: true }).click();
  await expect(page).toHaveURL(/\/conversations\/\d+\?message=\d+$/);
});

test("charts have axes and a tooltip; the queue page charts time to answer and queue depth", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("chart check", { firstName: "Cy", userId: 7474 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: chart check");
  await page.getByRole("link", { name: "Open in dashboard" }).click();

  const activity = page.getByTestId("activity-chart");
  await expect(activity.locator(".u-axis")).toHaveCount(2);
  // The newest hour is the last bar, at the right edge.
  const over = (await activity.locator(".u-over").boundingBox())!;
  await page.mouse.move(over.x + over.width - 2, over.y + over.height / 2);
  await expect(activity.getByTestId("chart-tooltip")).toContainText(/1 from users, 1 from the bot/);
  const latency = page.getByTestId("latency-chart");
  await expect(latency.locator(".u-axis")).toHaveCount(2);
  const lat = (await latency.locator(".u-over").boundingBox())!;
  await page.mouse.move(lat.x + lat.width / 2, lat.y + lat.height / 2);
  await expect(latency.getByTestId("chart-tooltip")).toContainText(/\d+ ms/);
  await dashboard.screenshot("conversation-charts");

  await page.goto("/envelopes");
  const answer = page.getByTestId("answer-chart");
  await expect(answer.locator(".u-axis")).toHaveCount(2);
  const depth = page.getByTestId("depth-chart");
  await expect(depth.locator(".u-axis")).toHaveCount(2);
  await page.waitForTimeout(3_500); // a second depth sample (the page polls every 3 s)
  const box = (await depth.locator(".u-over").boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await expect(depth.getByTestId("chart-tooltip")).toContainText(/0 turns, 0 envelopes waiting/);
  await dashboard.screenshot("queue-charts");
});

test("discarding a fork asks first; Cancel keeps it active, Yes discards it", async ({ page, dashboard }) => {
  await dashboard.signIn();
  await dashboard.simulate("discard me later", { firstName: "Dee", userId: 7575 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: discard me later");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await page.getByText("Run a task in the background…").click();
  await page.getByLabel("Background task").fill("A task to discard");
  await page.getByRole("button", { name: "Run in background" }).click();
  await expect(page.getByTestId("message").filter({ hasText: "Echo: A task to discard" })).toBeVisible();
  await page.getByRole("link", { name: "forks", exact: true }).click();
  await page.getByTestId("fork-row").filter({ hasText: "background" }).getByRole("button", { name: "Resume" }).click();
  const interactive = page.getByTestId("fork-row").filter({ hasText: "interactive" });
  await expect(interactive).toContainText("active");

  await interactive.getByRole("button", { name: "Discard" }).click();
  const confirm = interactive.getByRole("group", { name: "Confirm discard" });
  await expect(confirm).toContainText(/Discard fork #\d+\?/);
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await expect(interactive).not.toContainText("exited");
  await expect(interactive.getByRole("button", { name: "Discard" })).toBeVisible();

  await interactive.getByRole("button", { name: "Discard" }).click();
  await confirm.getByRole("button", { name: "Yes, discard" }).click();
  await expect(interactive).toContainText("exited");
});
