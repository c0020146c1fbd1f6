import type { ChatType, SenderRole } from "../channels/types";
import type { Settings } from "../settings/schema";

export type AnswerInput = {
  chatType: ChatType;
  senderIsBot: boolean;
  /** Set when a chat sent it (anonymous admin, channel, automatic forward). */
  senderRole?: SenderRole;
  addressesBot: boolean;
  repliesToBot: boolean;
};

/**
 * Whether the agent answers a message. Private chats: always. Groups: when the
 * bot is mentioned, a command is addressed to it, or the message replies to one
 * of its messages (or per the operator's group mode). Never to other bots, so two
 * bots cannot talk each other into a loop.
 */
export function shouldAnswer(
  input: AnswerInput,
  mode: Settings["groupAnswerMode"],
  chatSenders: Settings["answerChatSenders"] = "anonymous_admins",
): boolean {
  if (input.senderIsBot) return false;
  if (input.senderRole) {
    if (chatSenders === "none") return false;
    if (chatSenders === "anonymous_admins" && input.senderRole !== "anonymous_admin") return false;
  }
  if (input.chatType === "private") return true;
  if (input.chatType === "channel") return false;
  if (mode === "all") return true;
  if (mode === "never") return false;
  return input.addressesBot || input.repliesToBot;
}

export type InboundOutcome = { answer: true } | { answer: false; skipped: string };

/**
 * Whether a stored inbound message becomes work for the agent, and if not, why
 * (the envelope ends done at once with the reason, waiting for an operator).
 * A fork conflict is answered with a notice even without a model.
 */
export function inboundOutcome(input: {
  agentEnabled: boolean;
  addressed: boolean;
  modelConfigured: boolean;
  forkConflict: boolean;
  handoffCommand?: boolean;
  /** LINE standby mode: another module holds the chat; the message is kept for the record only. */
  standby?: boolean;
}): InboundOutcome {
  if (input.standby) return { answer: false, skipped: "standby mode: another module holds the chat" };
  // The user asked for a person: the handoff answers, never the agent.
  if (input.handoffCommand) return { answer: false, skipped: "handoff command" };
  if (!input.agentEnabled) return { answer: false, skipped: "agent paused in this conversation" };
  if (!input.addressed) return { answer: false, skipped: "not addressed to the bot" };
  if (!input.modelConfigured && !input.forkConflict) return { answer: false, skipped: "no model configured" };
  return { answer: true };
}
