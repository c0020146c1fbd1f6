import type { ContextFacts, ContextNeeds, StoredMessage } from "../db/context-facts";
import {
  attachmentsOf,
  beside,
  findStoredMessage,
  findStoredMessages,
  loadNewestMain,
  loadSession,
  mainWindowWithFacts,
  previousSentAtOf,
} from "../db/context-input";
import type { Database } from "../db/database";

export type ContextRequest = {
  conversation: ContextFacts["conversation"] & { id: number };
  current: StoredMessage | null;
  /** A burst's earlier messages (ids), oldest first. */
  burstMessageIds?: number[];
  needs: ContextNeeds;
};

/**
 * Loads the stored facts of a turn with index-backed queries whose cost does not
 * grow with the conversation's length: the session's newest messages (conversationId,
 * forkId, sentAt), for a fork its lineage, the main session before it began and
 * the main session's messages since; the reply target by id, its neighbours on both
 * sides and the chain upward by id; the burst; and, for each message loaded, when
 * the message before it in the chat was sent. What of it the model sees is decided
 * by lib/context/assemble.ts; which messages are loaded (the reply target, its
 * neighbours, the chain walk) is decided here, and lib/db/context-input.ts runs the queries.
 */
export async function loadContextFacts(db: Database, request: ContextRequest): Promise<ContextFacts> {
  const { current, needs } = request;
  const conversationId = request.conversation.id;
  // The commonest turn (a message in the main session, not a reply, no burst) on PostgreSQL: one statement.
  if (db.dialect === "postgresql" && current && current.forkId === null && !current.replyToMessageId && !request.burstMessageIds?.length) {
    const { session, previousSentAt, attachments } = await mainWindowWithFacts(db, current, needs.recency);
    const none = { forkBase: [], pendingUpdates: [], target: null, targetNeighbours: [], chain: [], burst: [] };
    return { conversation: request.conversation, current, session, ...none, previousSentAt, attachments };
  }
  const [session, reply, burst] = await Promise.all([
    current ? loadSession(db, current, needs) : loadNewestMain(db, conversationId, needs.recency),
    current ? loadReplyContext(db, current, needs) : Promise.resolve({ target: null, targetNeighbours: [], chain: [] }),
    findStoredMessages(db, request.burstMessageIds ?? []),
  ]);
  const { target, targetNeighbours, chain } = reply;
  const loaded = [
    ...(current ? [current] : []),
    ...session.session,
    ...session.forkBase,
    ...(target ? [target] : []),
    ...targetNeighbours,
    ...chain,
    ...burst,
  ];
  const [previousSentAt, attachments] = await Promise.all([
    previousSentAtOf(db, loaded),
    attachmentsOf(db, [...loaded, ...session.pendingUpdates.flatMap((u) => (u.id === undefined ? [] : [{ id: u.id }]))]),
  ]);
  return { conversation: request.conversation, current, ...session, target, targetNeighbours, chain, burst, previousSentAt, attachments };
}

/** The message `current` replies to, its neighbours in its own session, and its reply chain upward. */
async function loadReplyContext(db: Database, current: StoredMessage, needs: ContextNeeds) {
  const target = current.replyToMessageId ? await findStoredMessage(db, current.replyToMessageId) : null;
  const chain: StoredMessage[] = [];
  if (!target) return { target, targetNeighbours: [] as StoredMessage[], chain };
  const k = needs.replyNeighbours;
  const around = { conversationId: target.conversationId, forkId: target.forkId };
  const [before, after] = await Promise.all([beside(db, around, target, "before", k), beside(db, around, target, "after", k)]);
  let parentId = target.replyToMessageId;
  for (let depth = 1; depth < needs.replyChainDepth && parentId; depth++) {
    const parent = await findStoredMessage(db, parentId);
    if (!parent) break;
    chain.push(parent);
    parentId = parent.replyToMessageId;
  }
  return { target, targetNeighbours: [...before, ...after], chain };
}
