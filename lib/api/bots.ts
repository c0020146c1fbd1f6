import { z } from "zod";
import { botCreateBody, botPatchBody, botRemoveQuery, botWebhookBody } from "../bots/manage";
import { settingsUpdateSchema } from "../settings/schema";
import { defineOperations, isoDate } from "./operation";

/** A bot as the API shows it: never a credential, at most the token's last four characters. */
export const botViewSchema = z.strictObject({
  id: z.number().int(),
  platform: z.enum(["telegram", "line"]),
  /** env: configured by TELEGRAM_BOT_TOKEN / LINE_CHANNEL_* (credentials stay there); api: added here. */
  source: z.enum(["env", "api"]),
  /** The channel adapter its conversations carry (channel:<adapter>:<chat>). */
  adapter: z.string(),
  name: z.string(),
  username: z.string().nullable(),
  pictureUrl: z.string().nullable(),
  /**
   * active, disabled (its webhook answers 404; a Telegram bot's webhook is deleted, Telegram keeping its
   * updates until it is enabled), removed (history archived), sandbox (no token: the simulator plays the user).
   */
  status: z.enum(["active", "disabled", "removed", "sandbox"]),
  /** The token's last four characters. */
  tokenHint: z.string().nullable(),
  /** Where the platform delivers (under the deployment's public URL). */
  webhookPath: z.string(),
  /** What the platform was last told by POST /bots/{id}/webhook (kept while disabled: enabling sets it again). */
  webhookUrl: z.string().nullable(),
  /** Its own instructions; null = the global ones. */
  instructions: z.string().nullable(),
  /** Its own model; null = the deployment's. The key is never returned. */
  model: z.strictObject({ provider: z.string(), model: z.string(), baseUrl: z.string().optional(), hasApiKey: z.boolean() }).nullable(),
  /** Its overrides of the global settings ({} = inherits them all). */
  settings: settingsUpdateSchema,
  conversations: z.number().int(),
  lastMessageAt: isoDate.nullable(),
  createdAt: isoDate,
});

export const botListQuery = z.object({
  /** "true": removed bots too (their history stays readable). */
  removed: z.enum(["true", "false"]).optional(),
});
export const botListResponse = z.strictObject({ bots: z.array(botViewSchema) });
export const botResponse = z.strictObject({ bot: botViewSchema });
/** A change: the bot as stored, and what the platform did not take (a disable whose deleteWebhook failed). */
export const botChangeResponse = z.strictObject({ bot: botViewSchema, warning: z.string().optional() });
export const botWebhookResponse = z.strictObject({
  bot: botViewSchema,
  /** What the platform answered. */
  platform: z.string(),
});
export const botRemoveResponse = z.strictObject({
  ok: z.literal(true),
  erased: z.boolean(),
  /** What the platform answered to deleteWebhook, or null (LINE). */
  platform: z.string().nullable(),
});
export { botCreateBody, botPatchBody, botRemoveQuery, botWebhookBody };

export const operations = defineOperations([
  {
    method: "get",
    path: "/bots",
    summary: "The bots (admins): Telegram bots and LINE channels, those configured by the environment marked source env",
    query: botListQuery,
    response: { status: 200, schema: botListResponse },
    errors: { 403: "Not an admin" },
  },
  {
    method: "post",
    path: "/bots",
    summary:
      "Add a bot: { platform: telegram, token, name? } or { platform: line, channelSecret, channelAccessToken, name? }; checked with the platform (getMe, bot info) first",
    body: botCreateBody,
    response: { status: 201, schema: botResponse },
    errors: {
      400: "Invalid body, or the platform refused the credentials (its answer in the message); nothing stored",
      403: "Not an admin",
      409: "The platform's bot is already added (a bot not removed, or the environment's): the message names it; nothing stored",
      503: "No key to encrypt credentials with (SWITCHBOARD_SECRET_KEY)",
    },
  },
  {
    method: "get",
    path: "/bots/{id}",
    summary: "One bot",
    response: { status: 200, schema: botResponse },
    errors: { 403: "Not an admin" },
  },
  {
    method: "patch",
    path: "/bots/{id}",
    summary:
      "Change a bot's name, status (active, disabled) or agent: instructions, model { provider, model, baseUrl?, apiKey? }, settings overrides; null = inherit. Disabling a Telegram bot deletes its webhook, Telegram keeping its updates (the bot is disabled even when that fails: `warning` says so); enabling sets it again",
    body: botPatchBody,
    response: { status: 200, schema: botChangeResponse },
    errors: { 403: "Not an admin", 502: "Enabling: Telegram's setWebhook failed (its answer in the message); nothing changed" },
  },
  {
    method: "delete",
    path: "/bots/{id}",
    summary:
      "Remove a bot: its webhook is deleted at the platform, its webhook answers 404, its history stays readable (archived) unless ?erase=true",
    query: botRemoveQuery,
    response: { status: 200, schema: botRemoveResponse },
    errors: { 403: "Not an admin" },
  },
  {
    method: "post",
    path: "/bots/{id}/webhook",
    summary:
      "Register the bot's webhook { publicUrl }: Telegram setWebhook with its URL, secret_token and allowed_updates (LINE: the webhook endpoint)",
    body: botWebhookBody,
    response: { status: 200, schema: botWebhookResponse },
    errors: {
      400: "The platform refused (its answer in the message)",
      403: "Not an admin",
      409: "A disabled Telegram bot: enable it first",
    },
  },
]);
