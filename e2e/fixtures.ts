import { test as base, expect, type Page } from "@playwright/test";
import { E2E_ADMIN } from "../playwright.config";

/** Page object for the dashboard: sign-in, navigation and the simulator. */
export class Dashboard {
  constructor(readonly page: Page) {}

  async signIn(name = E2E_ADMIN.name, password = E2E_ADMIN.password) {
    await this.page.goto("/login");
    await this.page.getByLabel("User name").fill(name);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in" }).click();
    await expect(this.page.getByRole("heading", { name: "Conversations" })).toBeVisible();
  }

  /** Sends a message as a simulated Telegram user (a real Update through the webhook). */
  async simulate(text: string, options: { firstName?: string; userId?: number; groupId?: number; minutesAgo?: number } = {}) {
    await this.page.goto("/simulator");
    if (options.groupId) {
      await this.page.getByLabel("Chat").selectOption("group");
      await this.page.getByLabel("Group id").fill(String(options.groupId));
    }
    if (options.firstName) await this.page.getByLabel("User's first name").fill(options.firstName);
    if (options.userId) await this.page.getByLabel("User id").fill(String(options.userId));
    if (options.minutesAgo) await this.page.getByLabel("Sent minutes ago (to try gap notes)").fill(String(options.minutesAgo));
    await this.page.getByLabel("Message", { exact: true }).fill(text);
    await this.page.getByRole("button", { name: /^Send as/ }).click();
    await expect(this.page.getByRole("status")).toContainText("Delivered: stored");
  }

  /** The sandbox plays a platform failure on the bot's next send (the simulator's control). */
  async nextSendFails(kind: "refused" | "server_error" | "timeout") {
    await this.page.goto("/simulator");
    await this.page.getByLabel("The bot's next send").selectOption(kind);
    await expect(this.page.getByLabel("The bot's next send")).toHaveValue(kind);
  }

  async screenshot(name: string) {
    await this.page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
  }
}

export const test = base.extend<{ dashboard: Dashboard }>({
  dashboard: async ({ page }, use) => {
    await use(new Dashboard(page));
  },
});
export { expect };
