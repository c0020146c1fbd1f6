import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

async function csrf(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === "sb_csrf")?.value ?? "";
}

// The e2e model (e2e/support/fake-llm.mjs) reports 10 prompt and 3 completion tokens per call.
const COST = "$0.000040"; // (10 × $1 + 3 × $10) per million tokens

test("price a model, see a turn's cost on its conversation and the Usage page, a replay's cost apart, download the CSV", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  await page.goto("/settings");
  const prices = page.getByTestId("price-table");
  await expect(prices.getByTestId("price-row").first()).toBeVisible();
  await expect(prices).toContainText("prefilled");
  await prices.getByRole("button", { name: "Add a model" }).click();
  const row = prices.getByTestId("price-row").last();
  await row.getByLabel("Provider", { exact: true }).fill("openai-compatible");
  await row.getByLabel("Model", { exact: true }).fill("fake-echo");
  await row.getByLabel("Input price", { exact: true }).fill("1");
  await row.getByLabel("Output price", { exact: true }).fill("10");
  await prices.getByRole("button", { name: "Save prices" }).click();
  await expect(prices.getByRole("status")).toContainText("Prices saved");

  await dashboard.simulate("What does this cost?", { firstName: "Uma", userId: 7399 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: What does this cost?");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page.getByTestId("conversation-spend")).toContainText(`spent ${COST}`);

  // The turn replayed once (as the inspector's Replay… does): it costs the same, and is counted apart.
  const conversationId = Number(/\/conversations\/(\d+)/.exec(page.url())?.[1]);
  const timeline = await page.request.get(`/api/v1/conversations/${conversationId}/messages`);
  const turnId = ((await timeline.json()) as { messages: { turnId: number | null }[] }).messages.find((m) => m.turnId)?.turnId;
  expect(turnId).toBeGreaterThan(0);
  const replay = await page.request.post(`/api/v1/turns/${turnId}/replays`, {
    data: { mode: "frozen", variant: {} },
    headers: { "x-csrf-token": await csrf(page) },
  });
  expect(replay.status()).toBe(201);

  await page.getByRole("link", { name: "Usage", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Usage" })).toBeVisible();
  await expect(page.getByTestId("usage-totals")).toContainText("turns");
  await expect(page.getByTestId("usage-replays")).toContainText("over 1 replay ·");
  await expect(page.getByTestId("usage-chart").locator("canvas")).toBeVisible();
  await page.getByRole("button", { name: "Per conversation" }).click();
  const uma = page.getByTestId("usage-row").filter({ hasText: "Uma" });
  await expect(uma).toContainText(COST);
  await expect(uma.getByTestId("usage-row-replays")).toHaveText(`1 · ${COST}`);
  await page.getByRole("button", { name: "Per model" }).click();
  await expect(page.getByTestId("usage-row").filter({ hasText: "openai-compatible:fake-echo" })).toBeVisible();
  await dashboard.screenshot("usage");

  await page.getByRole("button", { name: "Per conversation" }).click();
  await expect(uma).toContainText(COST);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^switchboard-usage-conversation-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path())!, "utf8");
  const lines = csv.trim().split("\r\n");
  expect(lines[0]).toBe(
    "conversation_id,conversation,turns,input_tokens,cached_input_tokens,output_tokens,cost_usd,unpriced_turns,replays,replay_input_tokens,replay_output_tokens,replay_cost_usd,unpriced_replays",
  );
  expect(lines.find((l) => l.includes("Uma"))).toMatch(/,1,10,0,3,0\.00004,0,1,10,3,0\.00004,0$/);
  expect(lines.at(-1)).toMatch(/^total,/);
});

test("the production server serves /metrics to a token only, and liveness and readiness probes", async ({ request }) => {
  expect((await request.get("/metrics")).status()).toBe(401);
  expect((await request.get("/metrics", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status()).toBe(401);
  const metrics = await request.get("/metrics", { headers: { authorization: "Bearer e2e-api-token-0123456789" } });
  expect(metrics.status()).toBe(200);
  expect(metrics.headers()["content-type"]).toContain("text/plain");
  const text = await metrics.text();
  expect(text).toContain("# TYPE switchboard_webhook_requests_total counter");
  expect(text).toContain("# TYPE switchboard_model_call_duration_seconds histogram");
  expect(text).toMatch(/^switchboard_queue_oldest_wait_seconds \d/m);

  expect((await request.get("/api/health/live")).status()).toBe(200);
  const ready = await request.get("/api/health/ready");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toMatchObject({ status: "ready", migrations: { ok: true, pending: [] } });
});
