import type { APIRequestContext, Page } from "@playwright/test";
import sharp from "sharp";
import { E2E_WEBHOOK_SECRET } from "../playwright.config";
import { expect, test } from "./fixtures";

const API = { authorization: "Bearer e2e-api-token-0123456789" };
// From the clock: a retried worker reloads this file, and a reused update id would be dropped as a duplicate.
let updateId = 97_000_000 + (Date.now() % 10_000_000) * 10;

/** A group the bot reads but does not answer: the timeline holds only what the test sends. */
async function groupConversation(request: APIRequestContext, title: string) {
  const chat = { id: -1_009_700_000 - (Date.now() % 100_000), title, type: "supergroup" };
  const response = await request.post("/api/webhooks/telegram", {
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
    data: {
      update_id: ++updateId,
      message: {
        message_id: 1,
        from: { id: 9_700_001, is_bot: false, first_name: "Mara" },
        chat,
        date: Math.floor(Date.now() / 1000),
        text: "could you send me the floor plan?",
      },
    },
  });
  expect(response.status()).toBe(200);
  const list = await request.get(`/api/v1/conversations?search=${encodeURIComponent(title)}`, { headers: API });
  return ((await list.json()) as { conversations: { id: number; title: string }[] }).conversations.find((c) => c.title === title)!.id;
}

/** Drops a file on an element as a browser does (a DataTransfer holding a File). */
async function dropFile(page: Page, testId: string, file: { name: string; type: string; bytes: Buffer }) {
  const dataTransfer = await page.evaluateHandle(
    ({ name, type, b64 }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name, { type }));
      return transfer;
    },
    { name: file.name, type: file.type, b64: file.bytes.toString("base64") },
  );
  const target = page.getByTestId(testId);
  await target.dispatchEvent("dragover", { dataTransfer });
  await target.dispatchEvent("drop", { dataTransfer });
}

const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
    "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
);

test("an operator drops an image on the composer, sends it with a caption, sees its thumbnail and opens the viewer", async ({
  dashboard,
  page,
  request,
}) => {
  await dashboard.signIn();
  const title = `Media drop ${Date.now()}`;
  const id = await groupConversation(request, title);
  const image = await sharp({ create: { width: 900, height: 600, channels: 3, background: { r: 30, g: 140, b: 90 } } })
    .jpeg()
    .toBuffer();

  await page.goto(`/conversations/${id}`);
  await expect(page.getByTestId("timeline").getByText("could you send me the floor plan?")).toBeVisible();
  await dropFile(page, "composer", { name: "floor-plan.jpg", type: "image/jpeg", bytes: image });
  await expect(page.getByTestId("composer-file")).toContainText("floor-plan.jpg");
  await page.getByLabel("Caption (optional)").fill("here is the floor plan");
  await page.getByRole("button", { name: "Send file" }).click();

  const sent = page.getByTestId("timeline").getByTestId("message").filter({ hasText: "here is the floor plan" });
  await expect(sent.getByTestId("message-status")).toHaveText("sent");
  const thumb = sent.getByTestId("attachment-thumb");
  await expect(thumb).toBeVisible();
  // The box is reserved from the stored size (240 × 160 for 900 × 600), and the thumbnail really loaded (the session cookie).
  await expect(thumb.locator("img")).toHaveAttribute("width", "240");
  await expect(thumb.locator("img")).toHaveAttribute("height", "160");
  await expect.poll(() => thumb.locator("img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await expect.poll(() => thumb.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeLessThanOrEqual(320);

  await thumb.click();
  const viewer = page.getByTestId("image-viewer");
  await expect(viewer).toBeVisible();
  await expect.poll(() => viewer.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(900);
  await dashboard.screenshot("media-viewer");
  await page.keyboard.press("Escape");
  await expect(viewer).toBeHidden();
});

test("a document goes out from the file button and shows as a chip with its name, size and a download link", async ({
  dashboard,
  page,
  request,
}) => {
  await dashboard.signIn();
  const title = `Media document ${Date.now()}`;
  const id = await groupConversation(request, title);
  await page.goto(`/conversations/${id}`);
  await expect(page.getByTestId("timeline").getByText("could you send me the floor plan?")).toBeVisible();
  await page.getByTestId("file-input").setInputFiles({ name: "lease.pdf", mimeType: "application/pdf", buffer: PDF });
  await expect(page.getByTestId("composer-file")).toContainText("lease.pdf");
  await page.getByRole("button", { name: "Send file" }).click();

  const chip = page.getByTestId("timeline").getByTestId("attachment-file").filter({ hasText: "lease.pdf" });
  await expect(chip).toBeVisible();
  await expect(chip).toContainText("application/pdf");
  await expect(chip).toContainText(`${PDF.length} B`);
  await expect(chip).toHaveAttribute("download", "lease.pdf");
  const href = (await chip.getAttribute("href"))!;
  expect(href).toMatch(/^\/api\/v1\/media\/\d+$/);
  // The signed-in page's cookies fetch it: a download, never rendered in the console's origin.
  const file = await page.request.get(href);
  expect(file.status()).toBe(200);
  expect(file.headers()["content-disposition"]).toMatch(/^attachment/);
  expect(file.headers()["content-security-policy"]).toContain("sandbox");
  expect(Buffer.from(await file.body()).equals(PDF)).toBe(true);
  // Nobody else gets it.
  expect((await request.get(href)).status()).toBe(401);
});

test("a file the bytes contradict is refused in the composer with the reason, and stays there to fix", async ({
  dashboard,
  page,
  request,
}) => {
  await dashboard.signIn();
  const id = await groupConversation(request, `Media refused ${Date.now()}`);
  await page.goto(`/conversations/${id}`);
  await page
    .getByTestId("file-input")
    .setInputFiles({ name: "holiday.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not a picture at all") });
  await page.getByRole("button", { name: "Send file" }).click();
  await expect(page.getByTestId("composer-failure")).toContainText("holiday.jpg");
  await expect(page.getByTestId("composer-failure")).toContainText("not a photo");
  await expect(page.getByTestId("composer-file")).toContainText("holiday.jpg");
  await expect(page.getByTestId("timeline").getByTestId("attachments")).toHaveCount(0);
});

test("a user's photo, voice note and document arrive: thumbnails, a player and a chip in the timeline, the photo's line and file in the prompt inspector", async ({
  dashboard,
  page,
  request,
}) => {
  await dashboard.signIn();
  const run = Date.now() % 1_000_000;
  const chat = { id: 9_800_000 + (run % 100_000), first_name: "Noor", type: "private" };
  const from = { id: chat.id, is_bot: false, first_name: "Noor" };
  let messageId = 0;
  const post = async (message: Record<string, unknown>) => {
    const response = await request.post("/api/webhooks/telegram", {
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": E2E_WEBHOOK_SECRET },
      data: { update_id: ++updateId, message: { message_id: ++messageId, from, chat, date: Math.floor(Date.now() / 1000), ...message } },
    });
    expect(response.status()).toBe(200);
  };
  // In the Bot API's shapes; the e2e Bot API fake serves these file ids' bytes (e2e/support/fake-llm.mjs).
  await post({
    photo: [
      { file_id: `e2e-photo-${run}-small`, file_unique_id: `s${run}`, width: 90, height: 60, file_size: 1_200 },
      { file_id: `e2e-photo-${run}`, file_unique_id: `p${run}`, width: 900, height: 600, file_size: 30_000 },
    ],
    caption: `the view from my window ${run}`,
  });
  const list = await request.get(`/api/v1/conversations?search=${chat.id}`, { headers: API });
  const conversationId = ((await list.json()) as { conversations: { id: number }[] }).conversations[0].id;
  await page.goto(`/conversations/${conversationId}`);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByText(`Echo: the view from my window ${run}`)).toBeVisible();
  const photo = timeline
    .getByTestId("message")
    .filter({ hasText: `the view from my window ${run}` })
    .first();
  const thumb = photo.getByTestId("attachment-thumb");
  await expect(thumb).toBeVisible();
  await expect.poll(() => thumb.locator("img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);

  await post({ voice: { file_id: `e2e-voice-${run}`, file_unique_id: `v${run}`, duration: 2, mime_type: "audio/ogg", file_size: 9_000 } });
  await expect(timeline.getByTestId("attachment-audio")).toBeVisible();
  await post({
    document: {
      file_id: `e2e-doc-${run}`,
      file_unique_id: `d${run}`,
      file_name: `menu-${run}.pdf`,
      mime_type: "application/pdf",
      file_size: 300,
    },
  });
  const chip = timeline.getByTestId("attachment-file").filter({ hasText: `menu-${run}.pdf` });
  await expect(chip).toBeVisible();
  await expect(chip).toContainText("application/pdf");
  await dashboard.screenshot("media-inbound");

  // The inspector of the turn that answered the photo: its honest line, and the file itself.
  const messages = (await (await page.request.get(`/api/v1/conversations/${conversationId}/messages`)).json()) as {
    messages: { id: number; text: string; attachments: { kind: string; status: string }[] }[];
  };
  const photoMessage = messages.messages.find((m) => m.text === `the view from my window ${run}`)!;
  expect(photoMessage.attachments).toEqual([expect.objectContaining({ kind: "photo", status: "stored" })]);
  const { turnId } = await (await page.request.get(`/api/v1/messages/${photoMessage.id}/turn`)).json();
  await page.goto(`/turns/${turnId}`);
  await expect(page.getByText("[photo 900×600]").first()).toBeVisible();
  await expect(page.getByTestId("attachment-thumb").first()).toBeVisible();
});
