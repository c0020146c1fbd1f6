/**
 * The platform-free shapes the pipeline works with. Each adapter under
 * lib/channels/<platform> turns its platform's payloads into these and sends
 * through `ChannelAdapter`; nothing outside lib/channels knows a platform.
 */
export type ChatType = "private" | "group" | "supergroup" | "channel" | "room";

export type InboundMessage = {
  channel: string;
  /** The platform's delivery id (Telegram update_id); a repeat is a no-op. */
  updateId: string;
  /** "new" for a message, "edit" for an edited one. */
  kind: "new" | "edit";
  chat: { id: string; type: ChatType; title?: string };
  message: { id: string; text: string; sentAt: Date; topicId?: string };
  sender: { id: string; name: string; username?: string; isBot: boolean };
  /** The message this one replies to, with the platform's copy of it. */
  replyTo?: { id?: string; text?: string; senderName?: string; senderIsBot?: boolean; fromSelf: boolean };
  /** The fragment of the replied-to message the user selected. */
  quote?: string;
  /** The bot was @mentioned, text-mentioned, or a command was addressed to it. */
  addressesBot: boolean;
  /** Platform details the adapter needs later (e.g. a LINE reply token). Never shown to the model. */
  platform?: Record<string, string | number | boolean>;
};

export type SendRequest = {
  chatId: string;
  text: string;
  /** Platform id of the message to answer natively (Telegram reply_parameters). */
  replyToPlatformId?: string;
  topicId?: string;
  /** The inbound envelope's platform details (e.g. a LINE reply token). */
  platform?: Record<string, unknown>;
};

export type SendResult = { platformMessageId: string; sentAt: Date };

export interface ChannelAdapter {
  /** Adapter name as used in addresses: channel:<name>:<chat>. */
  readonly name: string;
  /** "live" talks to the platform; "sandbox" records outbound messages only. */
  readonly mode: "live" | "sandbox";
  send(request: SendRequest): Promise<SendResult>;
}

/**
 * A send failure the operator should see, with whether retrying could help and
 * whether the platform may have delivered it anyway ("unknown": a timeout, a 5xx,
 * a cut connection, a long text cut after its first part) — such sends are kept in
 * the history as possibly delivered and never resent automatically.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    // Adapters that do not say: a transient failure (5xx, 429, network) may have gone out.
    readonly outcome: "not_sent" | "unknown" = retryable ? "unknown" : "not_sent",
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}
