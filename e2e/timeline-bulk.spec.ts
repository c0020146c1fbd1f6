import Sqlite from "better-sqlite3";
import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { join } from "node:path";
import { expect, test } from "./fixtures";

const API = { authorization: "Bearer e2e-api-token-0123456789" };
const TOTAL = 5_000;
const label = (n: number) => `bulk ${String(n).padStart(4, "0")}`;

/**
 * A conversation of 5,000 messages, written straight into the e2e server's SQLite
 * file (the webhook would take minutes): the first message comes through the
 * webhook so the conversation exists, the rest copy its row with new texts.
 */
test("a 5,000-message timeline pages back to the start in order, with no duplicate or hole; a deep link 3,000 back lands there", async ({
  page,
  dashboard,
  request,
}) => {
  test.setTimeout(240_000);
  const chat = { id: -1_009_400_000_050, title: "E2E Bulk", type: "supergroup" };
  const from = { id: 9_400_050, is_bot: false, first_name: "Bulk" };
  const response = await request.post("/api/webhooks/telegram", {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: {
      update_id: 95_000_000 + (Date.now() % 1_000_000),
      message: { message_id: 1, from, chat, date: Math.floor(Date.now() / 1000), text: label(1) },
    },
  });
  expect(response.status()).toBe(200);
  const db = new Sqlite(join(process.cwd(), "data/e2e.db"));
  db.pragma("busy_timeout = 10000");
  const first = db.prepare(`SELECT * FROM "Message" WHERE "text" = ? ORDER BY "id" DESC LIMIT 1`).get(label(1)) as Record<string, unknown>;
  const conversationId = first.conversationId as number;
  const insert = db.prepare(
    `INSERT INTO "Message" ("conversationId", "direction", "senderKind", "senderIsBot", "senderName", "text", "platformMessageId", "mentionsBot", "sentAt", "createdAt")
     VALUES (?, 'inbound', 'user', 0, 'Bulk', ?, ?, 0, ?, ?)`,
  );
  const ids = new Map<number, string>([[first.id as number, label(1)]]);
  db.transaction(() => {
    for (let n = 2; n <= TOTAL; n++)
      ids.set(Number(insert.run(conversationId, label(n), String(n), first.sentAt, first.createdAt).lastInsertRowid), label(n));
  })();
  db.close();
  const target = [...ids.entries()].find(([, text]) => text === label(TOTAL - 3_000))![0];

  await dashboard.signIn();
  // A deep link 3,000 messages back (as from a search result) loads back to it and centres it.
  await page.goto(`/conversations/${conversationId}?message=${target}`);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.locator(`[data-message-id="${target}"]`)).toBeInViewport({ timeout: 30_000 });
  await expect(timeline.locator(`[data-message-id="${target}"]`)).toHaveClass(/highlight/);
  await expect(timeline.locator(`[data-message-id="${target}"]`)).toContainText(label(TOTAL - 3_000));

  // Scroll to the very start, then walk down the whole list collecting what renders.
  for (let i = 0; i < 60; i++) {
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
    if (await page.getByTestId("history-edge").filter({ hasText: "Beginning of the conversation" }).isVisible()) break;
    await page.waitForTimeout(250);
  }
  await expect(page.getByTestId("history-edge")).toHaveText("Beginning of the conversation");
  const seen = await timeline.evaluate(async (el) => {
    const order: number[] = [];
    const known = new Set<number>();
    el.scrollTo({ top: 0 });
    for (let guard = 0; guard < 20_000; guard++) {
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const rows = [...el.querySelectorAll<HTMLElement>("[data-message-id]")]
        .map((row) => ({ id: Number(row.dataset.messageId), top: row.getBoundingClientRect().top }))
        .sort((a, b) => a.top - b.top);
      for (const row of rows) {
        if (!known.has(row.id)) {
          known.add(row.id);
          order.push(row.id);
        }
      }
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) break;
      el.scrollTop += Math.max(100, el.clientHeight / 2);
    }
    return order;
  });
  const expected = [...ids.keys()].sort((a, b) => a - b);
  const mine = seen.filter((id) => ids.has(id));
  expect(mine.length).toBe(TOTAL);
  expect(mine).toEqual(expected);
  // Every shown row is rendered in id order (no out-of-order page merge).
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  // The API agrees: the timeline is the whole conversation.
  const newest = (await (await request.get(`/api/v1/conversations/${conversationId}/messages?take=1`, { headers: API })).json()) as {
    messages: { text: string }[];
  };
  expect(newest.messages[0]!.text).toBe(label(TOTAL));
});
