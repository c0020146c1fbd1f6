import { GrammyError, HttpError } from "grammy";
import { networkCodeOf, neverConnected } from "../never-connected";
import { splitText } from "../split-text";
import { DeliveryError, type SentMessageRef } from "../types";

/** Telegram's limit for one message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** Telegram's limit for a file's caption. */
const TELEGRAM_CAPTION_LIMIT = 1024;

/**
 * Why Telegram cannot take this edit or deletion as one call, or null. A text over
 * 4,096 went out as several messages and only the first one's id is kept: Telegram
 * edits and deletes one message at a time, so such a message is refused whole rather
 * than changed in part. A new text must fit in one message too.
 */
export function telegramChangeRefusal(request: SentMessageRef & { text?: string; caption?: boolean }): string | null {
  if (request.currentText.length > TELEGRAM_TEXT_LIMIT)
    return `it went out as ${splitText(request.currentText, TELEGRAM_TEXT_LIMIT).length} Telegram messages (over 4,096 characters), which cannot be changed as one`;
  const limit = request.caption ? TELEGRAM_CAPTION_LIMIT : TELEGRAM_TEXT_LIMIT;
  if (request.text !== undefined && request.text.length > limit)
    return `Telegram takes at most ${limit.toLocaleString("en")} characters in ${request.caption ? "a caption" : "one message"}; the new text has ${request.text.length.toLocaleString("en")}`;
  return null;
}

export const refused = (reason: string) => new DeliveryError(reason, { outcome: "not_sent", retryable: false });

/** Maps Bot API failures to what the operator sees and whether a retry could help. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof GrammyError) {
    const retryable = error.error_code === 429 || error.error_code >= 500;
    // 403 "bot was blocked by the user" / "bot was kicked from the group chat": no send will work.
    const membership =
      error.error_code !== 403
        ? null
        : /blocked/i.test(error.description)
          ? "blocked"
          : /kicked|not a member|removed/i.test(error.description)
            ? "removed"
            : /deactivated/i.test(error.description)
              ? "blocked"
              : null;
    // A 4xx is a refusal (nothing sent); a 5xx may come after the message went out.
    const retryAfter = error.parameters?.retry_after;
    return new DeliveryError(`Telegram ${error.error_code}: ${error.description}`, {
      outcome: error.error_code >= 500 ? "unknown" : "not_sent",
      retryable,
      membership,
      ...(retryAfter ? { retryAfterMs: retryAfter * 1000 } : {}),
      // An older (self-hosted) Bot API server answers 404 "Not Found" to a method it lacks.
      unsupported: error.error_code === 404 || (error.error_code === 400 && /method .*not found|unknown method/i.test(error.description)),
    });
  }
  if (error instanceof HttpError) {
    // No connection at all: nothing sent. A timeout or a cut connection: maybe sent.
    const code = networkCodeOf(error.error);
    const refused = neverConnected(code);
    return new DeliveryError(`Telegram unreachable: ${error.message}${code ? ` (${code})` : ""}`, {
      outcome: refused ? "not_sent" : "unknown",
      retryable: true,
    });
  }
  return new DeliveryError(`Telegram send failed: ${(error as Error).message}`, { outcome: "unknown", retryable: false });
}
