import type { InboundEvent, InboundMessage } from "../channels/types";
import type { Database } from "../db/database";
import { storeEvent, storeInbound, type StoreEventResult, type StoreInboundResult } from "../db/ingest";
import { agentAddress } from "../envelope/address";
import { publish } from "../events/bus";
import { log } from "../log";
import { getSettings } from "../settings/store";
import { shouldAnswer } from "./should-answer";

/**
 * Stores an inbound message durably (one transaction) and decides whether the
 * agent answers it. The webhook acknowledges only after this resolves.
 */
export async function ingestInbound(db: Database, message: InboundMessage, options: { modelConfigured: boolean } = { modelConfigured: true }): Promise<StoreInboundResult> {
  const settings = await getSettings(db);
  return storeInbound(db, message, {
    agent: agentAddress(settings.agentName),
    forkReplyTtlMs: settings.forkReplyTtlDays * 86_400_000,
    modelConfigured: options.modelConfigured,
    answers: ({ repliesToBot }) =>
      shouldAnswer(
        { chatType: message.chat.type, senderIsBot: message.sender.isBot, senderRole: message.sender.role, addressesBot: message.addressesBot, repliesToBot },
        settings.groupAnswerMode,
        settings.answerChatSenders,
      ),
  });
}

/** Any parsed delivery: messages go through ingestInbound, the rest are recorded once. */
export async function ingestEvent(
  db: Database,
  event: Exclude<InboundEvent, { type: "ignored" }>,
  options: { modelConfigured: boolean } = { modelConfigured: true },
): Promise<StoreInboundResult | StoreEventResult> {
  if (event.type === "message") {
    const stored = await ingestInbound(db, event.message, options);
    if (stored.status !== "duplicate") publish(db, { type: "message", conversationId: stored.conversationId, messageId: stored.messageId });
    return stored;
  }
  const result = await storeEvent(db, event);
  // Membership, an unsent message, a topic's name: what the pages show changed.
  if (result.status !== "duplicate") publish(db, { type: "conversation" });
  if (event.type === "membership" && result.status === "membership") {
    log.info("ingest.membership_changed", { channel: event.channel, chatId: event.chat.id, membership: event.membership });
  }
  return result;
}
