import type { InboundEvent, InboundMessage } from "../channels/types";
import type { Database } from "../db/database";
import { storeEvent, storeInbound, type StoreEventResult, type StoreInboundResult } from "../db/ingest";
import { finishEnvelope } from "../db/envelopes";
import { agentAddress } from "../envelope/address";
import { log } from "../log";
import { getSettings } from "../settings/store";
import { requestHandoff } from "./handoff";
import { COMMAND_REASON, parseHandoffCommand } from "./handoff-rules";
import type { TurnDeps } from "./respond";
import { shouldAnswer } from "./should-answer";

export type IngestOptions = {
  modelConfigured: boolean;
  /** What the handoff command needs to tell the user (send) and report a fork; without it the command is an ordinary message. */
  deps?: TurnDeps;
};

/**
 * Stores an inbound message durably (one transaction) and decides whether the
 * agent answers it. The webhook acknowledges only after this resolves.
 */
export async function ingestInbound(db: Database, message: InboundMessage, options: IngestOptions = { modelConfigured: true }): Promise<StoreInboundResult> {
  const settings = await getSettings(db);
  // The handoff command (a person asking for a person) is decided here, without the model:
  // stored like any message but never answered by the agent, then the handoff.
  const command = options.deps && message.kind === "new" && !message.sender.isBot ? parseHandoffCommand(message.message.text, settings.handoffCommand) : null;
  const stored = await storeInbound(db, message, {
    agent: agentAddress(settings.agentName),
    forkReplyTtlMs: settings.forkReplyTtlDays * 86_400_000,
    modelConfigured: options.modelConfigured,
    answers: ({ repliesToBot }) =>
      !command &&
      shouldAnswer(
        { chatType: message.chat.type, senderIsBot: message.sender.isBot, senderRole: message.sender.role, addressesBot: message.addressesBot, repliesToBot },
        settings.groupAnswerMode,
        settings.answerChatSenders,
      ),
  });
  if (command && options.deps && stored.status === "stored") await handoffByCommand(options.deps, stored, command.reason);
  return stored;
}

/**
 * The user's handoff command: the conversation goes to a human at once. Already
 * handed off: nothing more (the user was told when it started). A failure is
 * logged, never the webhook's 500: the message is stored and an operator can act.
 */
async function handoffByCommand(deps: TurnDeps, stored: Extract<StoreInboundResult, { status: "stored" }>, reason: string | null) {
  const { agentName } = await getSettings(deps.db);
  // The inbound envelope says why the agent did not answer it.
  await finishEnvelope(deps.db, stored.envelopeId, { status: "done", metadata: { skipped: "handoff command", handoff: { action: "request", via: "command" } } });
  const message = await deps.db.prisma.message.findUnique({ where: { id: stored.messageId }, select: { id: true, threadId: true, platformMessageId: true, platformTopicId: true } });
  try {
    await requestHandoff(deps, {
      conversationId: stored.conversationId,
      reason: reason ? `${COMMAND_REASON}: ${reason}` : COMMAND_REASON,
      by: agentAddress(agentName),
      replyTo: { envelopeId: stored.envelopeId, message },
    });
  } catch (error) {
    if ((error as { code?: string }).code === "conflict") return;
    log.error("handoff.command_failed", { conversationId: stored.conversationId, error: (error as Error).message });
  }
}

/** Any parsed delivery: messages go through ingestInbound, the rest are recorded once. */
export async function ingestEvent(
  db: Database,
  event: Exclude<InboundEvent, { type: "ignored" }>,
  options: IngestOptions = { modelConfigured: true },
): Promise<StoreInboundResult | StoreEventResult> {
  if (event.type === "message") return ingestInbound(db, event.message, options);
  const result = await storeEvent(db, event);
  if (event.type === "membership" && result.status === "membership") {
    log.info("ingest.membership_changed", { channel: event.channel, chatId: event.chat.id, membership: event.membership });
  }
  return result;
}
