// What every CLI here does on failure: one line on stderr, secrets removed, exit 1.
// Never a stack trace: Bot API URLs carry the token (…/bot123:ABC/getMe).
const SECRET_ENV = [
  "TELEGRAM_BOT_TOKEN",
  "TELEGRAM_WEBHOOK_SECRET",
  "SWITCHBOARD_API_TOKEN",
  "LLM_API_KEY",
  "LINE_CHANNEL_SECRET",
  "LINE_CHANNEL_ACCESS_TOKEN",
  "ADMIN_PASSWORD",
  "SETUP_CODE",
];

/** The text with every configured secret and anything shaped like a bot token replaced. */
export function redactSecrets(text, env = process.env) {
  let out = String(text)
    .replace(/bot\d+:[A-Za-z0-9_-]+/g, "bot[redacted]")
    .replace(/\d{5,}:[A-Za-z0-9_-]{20,}/g, "[redacted]");
  for (const name of SECRET_ENV) {
    const value = env[name];
    if (value && value.length >= 4) out = out.split(value).join("[redacted]");
  }
  return out;
}

/** The error's message and, for network failures, its cause, on one line. */
export function describeError(error) {
  const parts = [error?.message ?? String(error)];
  let cause = error?.cause ?? error?.error;
  for (let depth = 0; cause && depth < 3; depth++, cause = cause.cause) parts.push(cause.code ?? cause.message ?? String(cause));
  return redactSecrets(parts.filter(Boolean).join(": ").replace(/\s+/g, " ").trim());
}

/** Runs the CLI's body; any failure ends the process with one redacted line. */
export async function runCli(main) {
  try {
    await main();
  } catch (error) {
    console.error(`error: ${describeError(error)}`);
    process.exit(1);
  }
}
