import type { InboundMessage } from "../channels/types";
import type { Db } from "../db/client";
import { storeInbound, type StoreInboundResult } from "../db/ingest";
import { agentAddress } from "../envelope/address";
import { getSettings } from "../settings/store";
import { shouldAnswer } from "./should-answer";

/**
 * Stores an inbound message durably (one transaction) and decides whether the
 * agent answers it. The webhook acknowledges only after this resolves.
 */
export async function ingestInbound(db: Db, message: InboundMessage, options: { modelConfigured: boolean } = { modelConfigured: true }): Promise<StoreInboundResult> {
  const settings = await getSettings(db);
  return storeInbound(db, message, {
    agent: agentAddress(settings.agentName),
    forkReplyTtlMs: settings.forkReplyTtlDays * 86_400_000,
    modelConfigured: options.modelConfigured,
    answers: ({ repliesToBot }) =>
      shouldAnswer(
        { chatType: message.chat.type, senderIsBot: message.sender.isBot, addressesBot: message.addressesBot, repliesToBot },
        settings.groupAnswerMode,
      ),
  });
}
