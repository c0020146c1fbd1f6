import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { expect, test } from "./fixtures";

const LLM_PORT = Number(process.env.E2E_LLM_PORT ?? 3901);
// Unique per run: the e2e specs share one database.
const run = Date.now() % 1_000_000;
const botNumber = 7_000_000 + run;
const TOKEN = `${botNumber}:E2E${"x".repeat(30)}`;
const user = { id: 610_000_000 + run, is_bot: false, first_name: "Bots Walker" };
const other = { id: 620_000_000 + run, is_bot: false, first_name: "Sandbox Sam" };
let updateId = 800_000_000 + run * 10;
let messageId = 1;

const update = (text: string, from = user) => ({
  update_id: ++updateId,
  message: {
    message_id: ++messageId,
    from,
    chat: { id: from.id, type: "private", first_name: from.first_name },
    date: Math.floor(Date.now() / 1000),
    text,
  },
});

test("a bot added from the Bots page answers at its own webhook, filters the list, and its instructions reach the next prompt", async ({
  page,
  dashboard,
  request,
}) => {
  await dashboard.signIn();
  await page.getByRole("link", { name: "Bots", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Bots" })).toBeVisible();
  // The environment's bot is listed, marked as such (the sandbox bot here).
  await expect(page.getByText("configured by the environment").first()).toBeVisible();

  // Add: paste the token; the platform's getMe names it.
  await page.getByLabel("Bot token").fill(TOKEN);
  await page.getByRole("button", { name: "Add bot" }).click();
  await expect(page.getByTestId("bot-added")).toContainText(`Added E2E Bot ${botNumber} (@e2e_${botNumber}_bot)`);
  const panel = page.getByRole("region", { name: `Bot E2E Bot ${botNumber}` });
  await expect(panel.getByTestId("bot-status")).toHaveText("active");
  const botId = Number(await panel.getAttribute("data-bot-id"));

  // Register its webhook: setWebhook with its own URL and secret.
  await panel.getByRole("button", { name: "Register webhook" }).click();
  await expect(panel.getByRole("status")).toContainText(
    `Webhook was set: http://127.0.0.1:${process.env.E2E_PORT ?? 3900}/api/webhooks/telegram/${botId}`,
  );
  const calls = (await (await request.get(`http://127.0.0.1:${LLM_PORT}/__telegram/calls`)).json()) as {
    token: string;
    method: string;
    body: { url: string; secret_token: string };
  }[];
  const set = calls.find((c) => c.token === TOKEN && c.method === "setWebhook")!;
  expect(set.body.url).toMatch(new RegExp(`/api/webhooks/telegram/${botId}$`));

  // Its own settings: answers sent whole (the fake model does not stream drafts).
  await panel.getByText("Agent: instructions, model and settings").click();
  await panel
    .getByLabel("Telegram private chats: show the answer as it is written (drafts), then send it once")
    .selectOption({ label: "Off" });
  await panel.getByRole("button", { name: "Save agent" }).click();
  await expect(panel.getByText("Saved")).toBeVisible();

  // A user writes to the new bot; another to the sandbox bot at the old URL.
  const delivered = await request.post(`/api/webhooks/telegram/${botId}`, {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": set.body.secret_token },
    data: update("hello new bot"),
  });
  expect(delivered.status()).toBe(200);
  const wrongSecret = await request.post(`/api/webhooks/telegram/${botId}`, {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: update("forged"),
  });
  expect(wrongSecret.status()).toBe(401);
  const sandbox = await request.post("/api/webhooks/telegram", {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: update("hello sandbox bot", other),
  });
  expect(sandbox.status()).toBe(200);
  // The answer goes out with the new bot's token.
  await expect
    .poll(async () => {
      const all = (await (await request.get(`http://127.0.0.1:${LLM_PORT}/__telegram/calls`)).json()) as {
        token: string;
        method: string;
        body: { text: string };
      }[];
      return all.filter((c) => c.token === TOKEN && c.method === "sendMessage").map((c) => c.body.text);
    })
    .toContain("Echo: hello new bot");

  // Its conversations, filtered: the list link on its panel.
  await page.reload();
  await page
    .getByRole("region", { name: `Bot E2E Bot ${botNumber}` })
    .getByTestId("bot-conversations")
    .click();
  await expect(page).toHaveURL(new RegExp(`\\?botId=${botId}$`));
  await page.getByTestId("inbox-view-all").click();
  await expect(page.getByTestId("conversation-row")).toHaveCount(1);
  await expect(page.getByTestId("conversation-row").getByTestId("conversation-bot")).toHaveText(`E2E Bot ${botNumber}`);
  await expect(page.getByTestId("conversation-row")).toContainText("Bots Walker");
  await expect(page.getByTestId("bot-filter")).toHaveValue(String(botId));
  // All bots again: the sandbox bot's conversation is there too.
  await page.getByTestId("bot-filter").selectOption("");
  await expect(page.getByTestId("conversation-row").filter({ hasText: "Sandbox Sam" })).toHaveCount(1);

  // Its own instructions.
  await page.goto("/bots");
  const agentPanel = page.getByRole("region", { name: `Bot E2E Bot ${botNumber}` });
  await agentPanel.getByText("Agent: instructions, model and settings").click();
  await expect(
    agentPanel.getByLabel("Telegram private chats: show the answer as it is written (drafts), then send it once").locator("option:checked"),
  ).toHaveText("Off");
  await agentPanel.getByLabel("Instructions").fill(`You are PIRATE-${run}, answer like a pirate.`);
  await agentPanel.getByRole("button", { name: "Save agent" }).click();
  await expect(agentPanel.getByText("Saved")).toBeVisible();

  // The next message's prompt carries them; the inspector names the bot and the model.
  await request.post(`/api/webhooks/telegram/${botId}`, {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": set.body.secret_token },
    data: update("second message"),
  });
  let conversationId = 0;
  await expect
    .poll(async () => {
      const list = await (await page.request.get(`/api/v1/conversations?view=all&botId=${botId}`)).json();
      conversationId = list.conversations[0]?.id ?? 0;
      return conversationId;
    })
    .toBeGreaterThan(0);
  let turnId = 0;
  await expect
    .poll(async () => {
      const timeline = await (await page.request.get(`/api/v1/conversations/${conversationId}/messages`)).json();
      const second = (timeline.messages as { id: number; text: string }[]).find((m) => m.text === "second message");
      if (!second) return 0;
      const turn = await page.request.get(`/api/v1/messages/${second.id}/turn`);
      turnId = turn.ok() ? (await turn.json()).turnId : 0;
      return turnId;
    })
    .toBeGreaterThan(0);
  await page.goto(`/turns/${turnId}`);
  await expect(page.getByTestId("turn-bot")).toContainText(`E2E Bot ${botNumber}`);
  await expect(page.getByTestId("turn-model")).toHaveText("openai-compatible:fake-echo");
  await expect(page.getByText(`You are PIRATE-${run}, answer like a pirate.`)).toBeVisible();
  await dashboard.screenshot("bots-inspector");
});
