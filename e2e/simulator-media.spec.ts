import sharp from "sharp";
import { Dashboard, expect, test } from "./fixtures";
import { startSandboxServer } from "./support/sandbox-server";

/**
 * On a first start (sandbox, demo model, nothing configured) the simulator plays a
 * user with a username and sends a photo through the real path: an Update with
 * Telegram's `photo`, the sandbox's own Bot API serving getFile and the bytes, the
 * media fetch storing them, the model given the picture.
 */
test("the simulator's user has the username typed, and a photo it sends shows as an image and reaches the demo model", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const { base, stop } = await startSandboxServer("e2e-simulator-media");
  try {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const dashboard = new Dashboard(page);
    await dashboard.signIn();
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 40, b: 60 } } })
      .png()
      .toBuffer();

    await page.goto("/simulator");
    await page.getByLabel("User's first name").fill("Pia");
    await page.getByLabel("User id").fill("7878");
    await page.getByLabel(/^Username/).fill("pia_photos");
    await page.getByLabel("Attach").selectOption("photo");
    await page.getByLabel(/^File to send as a photo/).setInputFiles({ name: "red.png", mimeType: "image/png", buffer: png });
    await page.getByLabel("Message", { exact: true }).fill("what is in this picture?");
    await page.getByRole("button", { name: /^Send as/ }).click();
    await expect(page.getByRole("status")).toContainText("Delivered: stored");

    // The chat shows the picture (stored by the media fetch) and the demo model's answer names it.
    const timeline = page.getByTestId("sim-timeline");
    const sent = timeline.getByTestId("sim-message").filter({ hasText: "what is in this picture?" });
    await expect(sent.getByTestId("attachment-thumb")).toBeVisible({ timeout: 30_000 });
    await expect(timeline).toContainText("It carries [photo 640×480].");
    await expect(timeline).toContainText("I was given 1 picture of it as image.");

    // The conversation page: the contact panel has the username, the timeline the image.
    await page.getByRole("link", { name: "Open in dashboard" }).click();
    await expect(page.getByTestId("contact-panel")).toContainText("@pia_photos");
    await expect(page.getByTestId("contact-panel")).not.toContainText("@alice");
    const message = page.getByTestId("message").filter({ hasText: "what is in this picture?" });
    const thumb = message.getByTestId("attachment-thumb");
    await expect(thumb).toBeVisible();
    // A real image the browser decoded, in the sandbox's JPEG copy's proportions.
    await expect
      .poll(() =>
        thumb
          .locator("img")
          .first()
          .evaluate((img: HTMLImageElement) => img.naturalWidth / img.naturalHeight),
      )
      .toBeCloseTo(4 / 3, 1);
    await context.close();
  } finally {
    await stop();
  }
});
