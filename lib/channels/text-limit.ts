/**
 * How long one message's text may be, and the sentence that refuses a longer one.
 * Nothing is ever cut to fit: a text over the limit is refused with this sentence
 * (the API, the composer and the simulator say the same), never shortened silently.
 */

/**
 * An outbound message (an operator's, an envelope, the agent's reply): LINE's limit
 * for one text message. Telegram takes at most 4,096 per message: its adapter sends a
 * longer text as consecutive messages (the first one the native reply, all in the
 * chat's topic), each once. The LINE adapter splits the same way (lib/channels/split-text.ts)
 * should a longer text ever reach it: 5,000 a message, five messages a call.
 */
export const OUTBOUND_TEXT_LIMIT = 5_000;

/** A file's caption: Telegram's limit (LINE sends it as a text message after the file). */
export const MEDIA_CAPTION_LIMIT = 1_024;

/** A message a Telegram user can send (the simulator plays one). */
export const TELEGRAM_USER_TEXT_LIMIT = 4_096;

const count = (n: number) => n.toLocaleString("en");

/** "Too long: 6,000 characters; one message holds at most 5,000. Shorten it or send it as two." */
export function tooLongSentence(length: number, limit: number): string {
  return `Too long: ${count(length)} characters; one message holds at most ${count(limit)}. Shorten it or send it as ${Math.ceil(length / limit) === 2 ? "two" : "several"} messages.`;
}

/** The zod error option for a text's `.max(limit, …)`: the sentence, with the length sent. */
export function tooLongError(limit: number) {
  return {
    error: (issue: { input?: unknown }) => tooLongSentence(typeof issue.input === "string" ? issue.input.length : limit + 1, limit),
  };
}
