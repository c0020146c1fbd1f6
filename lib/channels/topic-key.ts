/**
 * A forum topic's conversation key, which is also its address's chat id:
 * `<chat id>:topic:<thread id>` (Telegram forum topics). Written, split and
 * matched only here.
 */
export const topicChatId = (chatId: string, topicId: string) => `${chatId}:topic:${topicId}`;

/** Splits a conversation key back into the chat and the forum topic to send to. */
export function splitTopicChatId(key: string): { chatId: string; topicId?: string } {
  const match = /^(.+):topic:(\d+)$/.exec(key);
  return match ? { chatId: match[1], topicId: match[2] } : { chatId: key };
}

/** The keys of a chat's topics, as a SQL LIKE pattern (or Prisma's startsWith without the %). */
export const topicKeysLike = (chatId: string) => `${chatId}:topic:%`;

/** A chat and its forum topics, as lib/db's membership writes match them (`ChatFamily`). */
export const chatFamily = (chatId: string) => ({ chatId, topicKeysLike: topicKeysLike(chatId) });
