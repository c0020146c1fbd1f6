import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { expect, test } from "./fixtures";

/** Real Update JSON through the webhook, as Telegram sends it from a forum supergroup. */
const forum = { id: -1_009_300_000_001, title: "E2E Support Forum", type: "supergroup", is_forum: true };
const user = { id: 9_300_001, is_bot: false, first_name: "Rosa" };
let updateId = 93_000_000;
let date = Math.floor(Date.now() / 1000) - 600;
const creation = {
  message_id: 40,
  from: user,
  chat: forum,
  date: date,
  message_thread_id: 40,
  is_topic_message: true,
  forum_topic_created: { name: "Billing", icon_color: 7_322_096 },
};

test("forum topics are grouped under their chat, and an edited message shows both texts", async ({ page, dashboard, request }) => {
  const post = async (body: object) => {
    const response = await request.post("/api/webhooks/telegram", {
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
      data: { update_id: ++updateId, ...body },
    });
    expect(response.status()).toBe(200);
  };
  await post({ message: { message_id: 39, from: user, chat: forum, date: ++date, text: "hello from the general topic" } });
  await post({ message: creation });
  await post({
    message: {
      message_id: 41,
      from: user,
      chat: forum,
      date: ++date,
      text: "my invoice is wrong",
      message_thread_id: 40,
      is_topic_message: true,
      reply_to_message: creation,
    },
  });
  await post({
    edited_message: {
      message_id: 41,
      from: user,
      chat: forum,
      date,
      edit_date: date + 30,
      text: "my invoice #42 is wrong",
      message_thread_id: 40,
      is_topic_message: true,
      reply_to_message: creation,
    },
  });

  await dashboard.signIn();
  const chatRow = page.getByTestId("conversation-row").filter({ hasText: "E2E Support Forum" });
  await expect(chatRow).toBeVisible();
  // The topic's row comes right after its chat's row.
  const topicRow = page.locator("[data-testid=conversation-row]:has-text('E2E Support Forum') + [data-testid=topic-row]");
  await expect(topicRow).toContainText("Billing");
  await dashboard.screenshot("topics-grouped");
  await topicRow.click();

  await expect(page.getByTestId("conversation-title")).toHaveText("E2E Support Forum › Billing");
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByTestId("message")).toHaveCount(1);
  const message = timeline.getByTestId("message").first();
  await expect(message.locator(".text")).toHaveText("my invoice #42 is wrong");
  await expect(message).toContainText("(edited)");
  await expect(message.getByTestId("earlier-text")).toContainText("my invoice is wrong");
  // Not shown as a reply to the topic's creation message.
  await expect(message.getByTestId("reply-arrow")).toHaveCount(0);
  await dashboard.screenshot("topic-edited-message");
});
