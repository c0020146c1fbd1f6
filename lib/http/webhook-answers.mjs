// Platform webhooks' answers, left uncompressed by the HTTP server in front of Next
// (scripts/start.mjs). Plain JavaScript so that script can import it without a
// TypeScript loader.

/**
 * Whether a request is a platform's webhook delivery. Telegram's Bot API server sends
 * `Accept-Encoding: gzip, deflate` with every update (tdlib/telegram-bot-api,
 * WebhookActor::send_update), and Next compresses every answer of unknown length, so
 * each `{"ok":true}` went through a new zlib stream: about 0.5 ms of the main thread per
 * update, for an answer smaller than its gzip header. The server drops the header on
 * these requests before Next sees them.
 *
 * @param {string | undefined} url the request target, e.g. "/api/webhooks/telegram"
 */
export function isWebhookDelivery(url = "/") {
  // The path as Next routes it (dot segments resolved), as lib/http/page-writes.mjs reads it.
  let path;
  try {
    path = new URL(url, "http://localhost").pathname;
  } catch {
    return false;
  }
  return path.startsWith("/api/webhooks/");
}
