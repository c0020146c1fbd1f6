import type { LineSource } from "./line/webhook";
import type { TelegramSource } from "./telegram/webhook";

/**
 * What a delivery to one bot's webhook is checked against, and the adapter its
 * conversations carry (`telegram`, `line`, or a bot record's `telegram-4`).
 */
export type WebhookSource = { adapter: string } & (
  | { platform: "telegram"; telegram: TelegramSource }
  | { platform: "line"; line: LineSource }
);
