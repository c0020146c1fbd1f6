import { type BotScope, inScope } from "../db/conversation-scope";
import type { Database } from "../db/database";
import { AppError } from "../errors";
import type { LiveEvent } from "../events/bus";
import { recordIdParam } from "../record-id";
import type { Role } from "./roles";

/**
 * Which bots' conversations a caller sees and acts on: a list of Bot ids, or null for
 * every bot. Admins and the API token are never limited; an agent is limited when an
 * admin set `Operator.botIds`. A limited caller gets 404 for another bot's
 * conversation, exactly as for an unknown id, so nothing tells them it exists.
 */
export type { BotScope } from "../db/conversation-scope";

/**
 * The scope of a stored operator. Anything but a list of ids (a hand-edited row) is
 * no bot at all rather than every bot: a broken limit must not widen access.
 */
export function botScopeOf(role: Role, stored: unknown): BotScope {
  if (role === "admin" || stored === null || stored === undefined) return null;
  if (!Array.isArray(stored)) return [];
  return stored.filter((id): id is number => Number.isSafeInteger(id));
}

/**
 * What a route addressed by an id names, when it belongs to one conversation: how to
 * find that conversation's bot, and what an unknown id answers (the same words).
 */
const resources: Record<
  Resource,
  { missing: string; botOf: (db: Database, id: number) => Promise<{ botId: number | null } | "any" | null> }
> = {
  conversation: {
    missing: "conversation not found",
    botOf: (db, id) => db.prisma.conversation.findUnique({ where: { id }, select: { botId: true } }),
  },
  message: {
    missing: "message not found",
    botOf: (db, id) => viaConversation(db.prisma.message.findUnique({ where: { id }, select: conv })),
  },
  turn: { missing: "turn not found", botOf: (db, id) => viaConversation(db.prisma.turn.findUnique({ where: { id }, select: conv })) },
  replay: {
    missing: "replay not found",
    botOf: (db, id) => viaConversation(db.prisma.replay.findUnique({ where: { id }, select: conv })),
  },
  fork: { missing: "fork not found", botOf: (db, id) => viaConversation(db.prisma.fork.findUnique({ where: { id }, select: conv })) },
  envelope: {
    missing: "envelope not found",
    botOf: async (db, id) => {
      const row = await db.prisma.envelope.findUnique({ where: { id }, select: { conversation: { select: { botId: true } } } });
      // An envelope with no conversation (operator to operator) belongs to no bot: not limited.
      return row ? (row.conversation ?? "any") : null;
    },
  },
  attachment: {
    missing: "attachment not found",
    botOf: async (db, id) => {
      const row = await db.prisma.attachment.findUnique({ where: { id }, select: { message: { select: conv } } });
      return row ? row.message.conversation : null;
    },
  },
};
const conv = { conversation: { select: { botId: true } } } as const;
const viaConversation = async (row: Promise<{ conversation: { botId: number | null } } | null>) => (await row)?.conversation ?? null;

/** A record of one conversation, named by a route's `[id]`. */
export type Resource = "conversation" | "message" | "turn" | "replay" | "fork" | "envelope" | "attachment";

/**
 * What a route's `[id]` names, as the route declares it (lib/server/with-operator.ts): a record
 * of one conversation, or `dataset` (a dataset holds turns of any bot: refused to a limited caller).
 */
export type ScopeKind = Resource | "dataset";

/**
 * The scope check of a route that declares what its `[id]` names: when the caller is
 * limited to some bots, that record's conversation must be of one of their bots;
 * otherwise 404 with the words of an unknown id, before the route runs (so nothing
 * changes). `id` is the route's own `[id]` parameter, the value the route will use.
 * Lists filter by the scope themselves (conversations, counts, search, handoffs, export, forks).
 */
export async function refuseOutOfScope(db: Database, scope: BotScope | undefined, kind: ScopeKind, id: unknown) {
  if (!scope) return;
  if (kind === "dataset") return refuseDatasets(scope);
  if (id === undefined) return;
  const parsed = recordIdParam.safeParse(id);
  // Not an id: the route answers 400 without reading anything.
  if (!parsed.success) return;
  if (!(await reachesRecord(db, scope, kind, parsed.data))) throw new AppError("not_found", resources[kind].missing);
}

/**
 * Whether a caller may reach a record of one conversation (a message, turn, …) by its id:
 * unlimited, one of their bots' conversations, or of none. An unknown id counts as
 * reachable: the caller answers it as unknown, with the same words.
 */
export async function reachesRecord(db: Database, scope: BotScope | undefined, resource: Resource, id: number): Promise<boolean> {
  if (!scope) return true;
  const row = await resources[resource].botOf(db, id);
  return !row || row === "any" || inScope(scope, row.botId);
}

/**
 * A dataset holds turns of any conversation, and its runs' reports show their answers:
 * no per-bot view of one exists, so an agent limited to some bots has none of them.
 */
export function refuseDatasets(scope: BotScope | undefined) {
  if (scope) throw new AppError("forbidden", "datasets may hold turns of any bot: an agent limited to some bots cannot use them");
}

/**
 * Whether a caller may reach a conversation named in a request's body or query: unlimited,
 * one of their bots', or none (null: an envelope between operators or agents). An unknown
 * id counts as reachable: the caller answers it as unknown, with the same words.
 */
export async function reachesConversation(db: Database, scope: BotScope | undefined, conversationId: number | null): Promise<boolean> {
  return conversationId === null || reachesRecord(db, scope, "conversation", conversationId);
}

/** The same check for a conversation named in a request's body (POST /forks, a task envelope) or query: 404 as for an unknown one. */
export async function refuseConversationOutOfScope(db: Database, scope: BotScope | undefined, conversationId: number) {
  if (!(await reachesConversation(db, scope, conversationId))) throw new AppError("not_found", resources.conversation.missing);
}

/** Conversations whose bot one event stream remembers (a conversation's bot, once set, never changes). */
const REMEMBERED_CONVERSATIONS = 1000;

/**
 * Which live events (GET /events) a caller hears of: every one when unlimited (undefined);
 * for an agent limited to some bots, those of one of their bots' conversations, those of
 * no conversation (`conversationId: null`, an envelope between operators, which they list
 * too) and bare pings that name nothing but their type (`{type:"conversation"}` after an
 * ingest, a relay's resync, settings): a page refetches on those through the same limits,
 * so all a ping tells is that something changed somewhere. An event naming a record (an
 * envelope, fork or message id) but not its conversation is left out: its bot is unknown.
 * Events carry ids only, but another bot's ids and timings are not theirs to learn.
 */
export function liveEventFilter(db: Database, scope: BotScope | undefined) {
  if (!scope) return undefined;
  const botOf = new Map<number, number>();
  return async (event: LiveEvent): Promise<boolean> => {
    const id = "conversationId" in event ? event.conversationId : undefined;
    if (id === null) return true;
    if (id === undefined) return Object.keys(event).every((key) => key === "type");
    let botId = botOf.get(id) ?? null;
    if (botId === null) {
      const row = await resources.conversation.botOf(db, id);
      if (!row || row === "any" || row.botId === null) return false;
      botId = row.botId;
      if (botOf.size >= REMEMBERED_CONVERSATIONS) botOf.delete(botOf.keys().next().value!);
      botOf.set(id, botId);
    }
    return inScope(scope, botId);
  };
}

/** Refuses unknown bot ids in a limit (400), naming them. */
export async function checkBotIds(db: Database, botIds: number[]) {
  const found = await db.prisma.bot.findMany({ where: { id: { in: botIds } }, select: { id: true } });
  const known = new Set(found.map((b) => b.id));
  const unknown = [...new Set(botIds)].filter((id) => !known.has(id));
  if (unknown.length > 0) throw new AppError("bad_request", `no such bot: ${unknown.join(", ")}`);
}
