import type { ClaimedTurn } from "../db/claim";
import type { Database } from "../db/database";
import { findConversationByChat } from "../db/conversations";
import { findEnvelope } from "../db/envelopes";
import { endEnvelope } from "./end-envelope";
import { findReplyTarget } from "../db/messages";
import { parseAddress } from "../envelope/address";
import type { WorkerKind } from "../envelope/work-kinds";
import { sendToChat, keepPossiblyDelivered, type SendResult } from "./send-to-chat";
import { runBackgroundTask } from "./forks";
import { runAgentTurn, runForkConflictNotice, type TurnDeps, type TurnOutcome } from "./agent-turn";

/** How a claimed envelope ended: a chat turn's outcome, a send's result, or nothing to do. */
export type DispatchOutcome =
  | { to: "agent"; turn: TurnOutcome }
  | { to: "background_task" }
  | { to: "channel"; delivery: ChannelMailOutcome };

/** A send's result, or why nothing was sent (already finished, not channel mail). */
export type ChannelMailOutcome = SendResult | { kind: "skipped"; reason: string };

/**
 * The handler of each kind of work the worker claims (lib/envelope/work-kinds.ts):
 * a new kind does not compile until it has one. Each runs the turn's latest
 * envelope; a user's burst is answered once, as a reply to the latest.
 */
const handlers: { [K in WorkerKind]: (deps: TurnDeps, turn: ClaimedTurn) => Promise<DispatchOutcome> } = {
  user_turn: async (deps, turn) => ({
    to: "agent",
    turn: await runAgentTurn(deps, turn.envelopes.at(-1)!.id, turn.envelopes.slice(0, -1)),
  }),
  fork_conflict_notice: async (deps, turn) => ({ to: "agent", turn: await runForkConflictNotice(deps, turn.envelopes.at(-1)!.id) }),
  background_task: async (deps, turn) => {
    await runBackgroundTask(deps, turn.envelopes.at(-1)!.id);
    return { to: "background_task" };
  },
  channel_mail: async (deps, turn) => ({ to: "channel", delivery: await deliverEnvelopeToChat(deps, turn.envelopes.at(-1)!.id) }),
};

/** Runs a claimed turn with its kind's handler. */
export function dispatchEnvelope(deps: TurnDeps, turn: ClaimedTurn): Promise<DispatchOutcome> {
  return handlers[turn.kind](turn.lease ? { ...deps, lease: turn.lease } : deps, turn);
}

/** Delivers an envelope addressed to channel:<adapter>:<chat> (scheduled or API sends). */
export async function deliverEnvelopeToChat(
  deps: { db: Database } & Pick<TurnDeps, "channels">,
  envelopeId: number,
): Promise<ChannelMailOutcome> {
  const envelope = await findEnvelope(deps.db, envelopeId);
  if (!envelope || envelope.status === "done" || envelope.status === "failed")
    return { kind: "skipped", reason: "the envelope is already finished" };
  const address = parseAddress(envelope.to);
  if (address.kind !== "channel") return { kind: "skipped", reason: "not addressed to a chat" };
  const conversation = await findConversationByChat(deps.db, address.adapter, address.chatId);
  if (!conversation) {
    const error = `no conversation ${envelope.to} is known`;
    await endEnvelope(deps.db, envelopeId, { status: "failed", error }, envelope.conversationId);
    return { kind: "failed", envelopeId, outcome: "not_sent", error };
  }
  // Thread natively under the replied-to envelope's message, when it has one in this
  // chat: another chat's message id means nothing here (and its tree is not ours). The
  // envelope stays threaded under its parent either way.
  const parent = envelope.replyToEnvelopeId ? await findEnvelope(deps.db, envelope.replyToEnvelopeId) : null;
  const parentMessage = parent?.messageId ? await findReplyTarget(deps.db, parent.messageId) : null;
  const replyTo = parentMessage && parentMessage.conversationId === conversation.id ? parentMessage : null;
  const sender = parseAddress(envelope.from);
  const message = {
    senderKind: sender.kind === "operator" ? ("operator" as const) : ("agent" as const),
    senderName: sender.kind === "channel" ? sender.adapter : sender.name,
    conversation,
    text: envelope.text,
    replyTo,
    // Like the operator's: a reply joins its message's session, other mail the one live now
    // (send-to-chat decides again whether that fork is still live when it is written).
    forkId: envelope.forkId ?? (replyTo ? replyTo.forkId : conversation.activeForkId),
  };
  if (envelope.attempts > 1) {
    // An earlier claim ran out without finishing: it may have sent already. At most once;
    // kept in the history as possibly delivered.
    const error = "delivery outcome unknown: an earlier attempt stopped mid-send";
    await keepPossiblyDelivered(deps.db, envelopeId, { ...message, error });
    return { kind: "failed", envelopeId, outcome: "unknown", error };
  }
  return sendToChat(deps, { ...message, from: envelope.from, replyToEnvelopeId: envelope.replyToEnvelopeId, envelopeId });
}
