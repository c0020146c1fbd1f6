import { findMessage, type MessageWithConversation } from "../../db/messages";
import { DeliveryError, type ChannelAdapter } from "../../channels/types";
import { AppError, notFound } from "../../errors";
import { refuseWithoutBot } from "../../pipeline/operator-reply";
import type { SendDeps } from "../../pipeline/send-to-chat";

type Change = "edit" | "delete";

/**
 * A message an operator may edit or delete in the chat, with the adapter that can:
 * the agent's answers and operators' messages that went out, on a platform that can
 * change a sent message. Anything else is a 409 saying why (404 for an unknown id).
 */
export async function changeableMessage(
  deps: Pick<SendDeps, "db" | "channels">,
  messageId: number,
  change: Change,
): Promise<{ message: MessageWithConversation; adapter: ChannelAdapter }> {
  const message = await findMessage(deps.db, messageId);
  if (!message) throw notFound("message");
  const verb = change === "edit" ? "edited" : "deleted";
  if (message.senderKind !== "agent" && message.senderKind !== "operator")
    throw new AppError(
      "conflict",
      `only the agent's answers and operators' messages can be ${verb}: this one is the ${message.senderKind}'s`,
    );
  if (message.deletedAt) throw new AppError("conflict", "the message was deleted from the chat");
  refuseWithoutBot(deps, message.conversation.channel);
  const adapter = deps.channels[message.conversation.channel]!;
  if (!(change === "edit" ? adapter.editMessage : adapter.deleteMessage))
    throw new AppError("conflict", `${platformName(message.conversation.channel)} cannot ${change} a message once it is sent`);
  if (!message.platformMessageId)
    throw new AppError(
      "conflict",
      `the message has no platform id (it was not delivered, or not confirmed): it cannot be ${verb} in the chat`,
    );
  return { message, adapter };
}

/** How a platform's answer reaches the operator: its refusal is a 409 with its words, anything else a 502. */
export function platformFailure(error: unknown, change: Change): never {
  if (error instanceof DeliveryError)
    throw new AppError(
      error.outcome === "not_sent" && !error.retryable ? "conflict" : "bad_gateway",
      `not ${change === "edit" ? "edited" : "deleted"}: ${error.message}`,
    );
  throw error;
}

const platformName = (channel: string) => (channel.startsWith("line") ? "LINE" : channel.startsWith("telegram") ? "Telegram" : channel);
