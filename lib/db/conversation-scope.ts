/**
 * A caller's bots (lib/auth/bot-scope.ts) as conditions on Conversation: a list of
 * Bot ids, or null / undefined for every bot. A conversation without a bot is only
 * for the unlimited.
 */
export type BotScope = number[] | null;

/** A Prisma `where` on Conversation that keeps the scope's conversations (empty when unlimited). */
export const conversationScopeWhere = (scope: BotScope | undefined) => (scope ? { botId: { in: scope } } : {});

/**
 * A Prisma `where` on a record that may belong to a conversation (an envelope): those of the
 * scope's conversations, and those of none (between operators or agents, reachable by id too).
 */
export const ofConversationScopeWhere = (scope: BotScope | undefined) =>
  scope ? { OR: [{ conversationId: null }, { conversation: conversationScopeWhere(scope) }] } : {};

/** Whether a conversation of this bot is in the scope (a conversation without a bot only for the unlimited). */
export const inScope = (scope: BotScope | undefined, botId: number | null) => !scope || (botId !== null && scope.includes(botId));

/**
 * The SQL condition on a conversation alias that keeps the scope's conversations, with
 * its parameters, for raw queries (search). `TRUE` when unlimited.
 */
export function conversationScopeSql(scope: BotScope | undefined, alias: string): { sql: string; params: number[] } {
  if (!scope) return { sql: "TRUE", params: [] };
  if (scope.length === 0) return { sql: "FALSE", params: [] };
  return { sql: `${alias}."botId" IN (${scope.map(() => "?").join(", ")})`, params: scope };
}
