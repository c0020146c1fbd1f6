// Registers, inspects or removes the Telegram webhook for TELEGRAM_BOT_TOKEN.
//   npm run telegram:webhook -- --url https://example.com/api/webhooks/telegram
//   npm run telegram:webhook -- --info
//   npm run telegram:webhook -- --delete
// The secret (TELEGRAM_WEBHOOK_SECRET) is sent as secret_token, so Telegram puts it
// in X-Telegram-Bot-Api-Secret-Token on every delivery. Nothing secret is printed.
import { parseArgs } from "node:util";
import { Api } from "grammy";
import { runCli } from "./lib/cli.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    info: { type: "boolean" },
    delete: { type: "boolean" },
    "max-connections": { type: "string", default: "40" },
    "drop-pending": { type: "boolean" },
  },
});
const token = process.env.TELEGRAM_BOT_TOKEN;
if (!token) {
  console.error("TELEGRAM_BOT_TOKEN is not set");
  process.exit(2);
}
// A bounded wait: an unreachable Bot API is an error after 15 s, not a hang.
const api = new Api(token, { timeoutSeconds: 15, ...(process.env.TELEGRAM_API_ROOT ? { apiRoot: process.env.TELEGRAM_API_ROOT } : {}) });

await runCli(async () => {
  if (values.delete) {
    await api.deleteWebhook({ drop_pending_updates: Boolean(values["drop-pending"]) });
    console.log("webhook deleted");
  } else if (values.url) {
    const secret = process.env.TELEGRAM_WEBHOOK_SECRET;
    if (!secret || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
      console.error("TELEGRAM_WEBHOOK_SECRET must be set: 1-256 characters of A-Z, a-z, 0-9, _ and -");
      process.exit(2);
    }
    if (!values.url.startsWith("https://")) {
      console.error("--url must be an https:// URL (Telegram delivers webhooks over HTTPS only)");
      process.exit(2);
    }
    await api.setWebhook(values.url, {
      secret_token: secret,
      allowed_updates: ["message", "edited_message"],
      max_connections: Number(values["max-connections"]),
      drop_pending_updates: Boolean(values["drop-pending"]),
    });
    console.log(`webhook set to ${values.url}`);
  } else if (values.info) {
    const info = await api.getWebhookInfo();
    console.log(JSON.stringify(info, null, 2));
  } else {
    console.error("usage: npm run telegram:webhook -- --url https://…/api/webhooks/telegram | --info | --delete [--drop-pending]");
    process.exit(2);
  }
});
