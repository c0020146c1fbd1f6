import type { InboundAttachment, MediaDownload, MediaDownloadRequest, SharedContent } from "../media/types";

/**
 * The platform-free shapes the pipeline works with. Each adapter under
 * lib/channels/<platform> turns its platform's payloads into these and sends
 * through `ChannelAdapter`; nothing outside lib/channels knows a platform.
 */
export type ChatType = "private" | "group" | "supergroup" | "channel" | "room";

/**
 * Who a message sent on behalf of a chat stands for (Telegram sender_chat): an
 * anonymous group admin, a channel posting in its discussion group, or the linked
 * channel's post copied into the group automatically. Absent for a person.
 */
export type SenderRole = "anonymous_admin" | "channel" | "automatic_forward";

/** A chat as a conversation: a forum topic is a conversation of its own. */
export type InboundChat = {
  /** The conversation's key and address: the chat id, or "<chat id>:topic:<thread id>". */
  id: string;
  type: ChatType;
  title?: string;
  /** Set for a forum topic: the chat it belongs to, the thread id, and its name when known. */
  topic?: { chatId: string; id: string; name?: string };
};

export type InboundMessage = {
  channel: string;
  /** The platform's delivery id (Telegram update_id); a repeat is a no-op. */
  updateId: string;
  /** "new" for a message, "edit" for an edited one. */
  kind: "new" | "edit";
  chat: InboundChat;
  message: {
    id: string;
    text: string;
    sentAt: Date;
    /** For an edit: when the platform says it was edited (Telegram edit_date). */
    editedAt?: Date;
    topicId?: string;
    /** A forward's real origin as a name (Telegram forward_origin), e.g. "Daily News (channel)". */
    forwardedFrom?: string;
    /** The inline bot the message was sent via (username). */
    viaBot?: string;
    /** Files the message carries, to record with it (the fetch job downloads them later). */
    attachments?: InboundAttachment[];
    /** What it shares that is not a file: a location, venue, contact, poll, dice. */
    shared?: SharedContent;
    /** The album it is part of (Telegram media_group_id, LINE imageSet.id): one turn answers the whole album. */
    mediaGroupId?: string;
  };
  sender: { id: string; name: string; username?: string; isBot: boolean; role?: SenderRole; language?: string };
  /**
   * The message this one replies to, with the platform's copy of it. `chatTitle` is
   * set for a reply to another chat's message (Telegram external_reply).
   */
  replyTo?: { id?: string; text?: string; senderName?: string; senderIsBot?: boolean; fromSelf: boolean; chatTitle?: string };
  /** The fragment of the replied-to message the user selected. */
  quote?: string;
  /** The bot was @mentioned, text-mentioned, or a command was addressed to it. */
  addressesBot: boolean;
  /** Platform details the adapter needs later (e.g. a LINE reply token). Never shown to the model. */
  platform?: Record<string, string | number | boolean>;
};

/** The bot's standing in a chat; null = member (it may send). */
export type Membership = null | "blocked" | "removed" | "left";

/**
 * Everything a webhook delivery can mean, after parsing: a message to store, a
 * change to the bot's membership, a message taken back, a forum topic renamed, or
 * something acknowledged and ignored (with the reason, which is logged).
 */
export type InboundEvent =
  | { type: "message"; message: InboundMessage }
  | { type: "membership"; channel: string; updateId: string; chat: InboundChat; membership: Membership; at: Date }
  | { type: "deleted"; channel: string; updateId: string; chat: InboundChat; messageId: string; at: Date }
  | { type: "topic"; channel: string; updateId: string; chat: InboundChat & { topic: { chatId: string; id: string; name: string } } }
  | { type: "ignored"; reason: string };

export type SendRequest = {
  chatId: string;
  text: string;
  /** Platform id of the message to answer natively (Telegram reply_parameters). */
  replyToPlatformId?: string;
  topicId?: string;
  /** The inbound envelope's platform details (e.g. a LINE reply token). */
  platform?: Record<string, unknown>;
  /**
   * Ranges of `text` (UTF-16 offsets) written by users, to show as inert text: on
   * Telegram a code entity, where no link, mention or command is clickable; the
   * message also gets no link preview.
   */
  verbatim?: { offset: number; length: number }[];
};

export type SendResult = { platformMessageId: string; sentAt: Date };

/** A message the bot sent, to change or take back: where it is, and its text as stored now. */
export type SentMessageRef = {
  chatId: string;
  platformMessageId: string;
  /** The text as sent (a file's caption): a text the platform took as several messages cannot be changed as one. */
  currentText: string;
};

/** A new text for a sent message; `caption` when it is a file's caption. */
export type EditRequest = SentMessageRef & { text: string; caption: boolean };

/** How a file goes out: the platform's message type for it, decided from its bytes. */
export type OutboundMediaKind = "photo" | "voice" | "audio" | "video" | "document";

/** A file to send, as far as a platform's rules go (checked before anything is stored or sent). */
export type OutboundMediaFacts = {
  kind: OutboundMediaKind;
  /** Sniffed from the bytes. */
  mimeType: string;
  sizeBytes: number;
  durationSeconds?: number;
  /** Whether HTTPS links the platform can fetch exist (PUBLIC_URL is set). */
  hasLinks: boolean;
};

/** An operator's file to a chat: the send's address and threading, the file, and its caption. */
export type MediaSendRequest = Omit<SendRequest, "text" | "verbatim"> & {
  caption: string;
  media: OutboundMediaFacts & {
    bytes: Uint8Array;
    fileName: string;
    /** Signed HTTPS links to the file and its preview, for a platform that fetches media itself (LINE). */
    links?: { original: string; preview: string };
  };
};

/** A chat to show "the bot is working" in, or an answer's draft: its address and platform details. */
export type ActivityTarget = {
  chatId: string;
  chatType: ChatType;
  topicId?: string;
  /** The inbound envelope's platform details. */
  platform?: Record<string, unknown>;
};

export interface ChannelAdapter {
  /** Adapter name as used in addresses: channel:<name>:<chat>. */
  readonly name: string;
  /** "live" talks to the platform; "sandbox" records outbound messages only. */
  readonly mode: "live" | "sandbox";
  send(request: SendRequest): Promise<SendResult>;
  /**
   * Shows that the bot is working (Telegram "typing…", LINE's loading animation);
   * absent where the platform has nothing of the kind. Best effort: rejects with a
   * DeliveryError (with `retryAfterMs` on a 429), and callers never wait for it.
   */
  showActivity?(target: ActivityTarget): Promise<void>;
  /** How often `showActivity` must be renewed while the bot keeps working. */
  readonly activityRenewMs?: number;
  /**
   * An ephemeral preview of an answer being written (Telegram sendMessageDraft,
   * private chats only); the same `draftId` animates the change. Rejects with a
   * DeliveryError; `unsupported` when the platform does not have the method.
   */
  sendDraft?(target: ActivityTarget, draftId: number, text: string): Promise<void>;
  /** Whether `sendDraft` can be used for this chat (false after the platform refused the method). */
  draftsFor?(target: ActivityTarget): boolean;
  /**
   * Sends a file with its caption (Telegram sendPhoto / sendVoice / sendAudio / sendVideo /
   * sendDocument; LINE image / video / audio messages by link). Absent: the platform takes
   * no files from the console. Rejects with a DeliveryError like `send`.
   */
  sendMedia?(request: MediaSendRequest): Promise<SendResult>;
  /**
   * Changes the text of a message the bot sent (Telegram editMessageText, or
   * editMessageCaption for a file's caption). Absent: the platform cannot edit a sent
   * message (LINE). Rejects with a DeliveryError; a refusal (`not_sent`) says why.
   */
  editMessage?(request: EditRequest): Promise<void>;
  /** Takes a message the bot sent back from the chat (Telegram deleteMessage). Absent: the platform cannot (LINE). */
  deleteMessage?(request: SentMessageRef): Promise<void>;
  /** Why this platform cannot take this file (said before anything is stored or sent), or null. */
  mediaRefusal?(media: OutboundMediaFacts): string | null;
  /**
   * Downloads a file a user sent (Attachment.sourceRef: a Telegram file_id, a LINE
   * message id), never more than `maxBytes`; absent where the adapter cannot fetch
   * files (the Telegram sandbox without an API root). Never throws: every outcome is a value.
   */
  downloadMedia?(request: MediaDownloadRequest): Promise<MediaDownload>;
}

/**
 * What a failed send means for the message: "not_sent" — the platform refused it or
 * was never reached, the user got nothing; "unknown" — a timeout, a 5xx, a cut
 * connection, a long text cut after its first part: it may have been delivered,
 * so it is kept in the history as possibly delivered and never resent automatically.
 */
export type DeliveryOutcome = "not_sent" | "unknown";

export type DeliveryErrorOptions = {
  outcome: DeliveryOutcome;
  /** Whether a later attempt could succeed (a 5xx, a 429, the network). */
  retryable: boolean;
  /** The platform said the bot can no longer send to this chat (blocked, removed). */
  membership?: Membership;
  /** A 429's wait (Telegram retry_after), for best-effort calls that skip rather than wait. */
  retryAfterMs?: number;
  /** The platform does not have the method at all (an older Bot API server's 404). */
  unsupported?: boolean;
};

/** A send failure the operator should see; callers switch on `outcome`, never on the message. */
/** A brand shared by every copy of this module (see DeliveryError[Symbol.hasInstance]). */
const DELIVERY_ERROR = Symbol.for("switchboard.DeliveryError");

export class DeliveryError extends Error {
  /**
   * `instanceof` by brand, not by class identity: the Next build bundles lib/ once for
   * the instrumentation (which made the channel adapters) and again for each route
   * handler, so an operator's send from a route got the other copy's error and a
   * refused send was taken for an unknown outcome ("possibly delivered").
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[DELIVERY_ERROR] === true;
  }

  readonly [DELIVERY_ERROR] = true;
  readonly outcome: DeliveryOutcome;
  readonly retryable: boolean;
  readonly membership: Membership;
  readonly retryAfterMs: number | undefined;
  readonly unsupported: boolean;

  constructor(message: string, options: DeliveryErrorOptions) {
    super(message);
    this.name = "DeliveryError";
    this.outcome = options.outcome;
    this.retryable = options.retryable;
    this.membership = options.membership ?? null;
    this.retryAfterMs = options.retryAfterMs;
    this.unsupported = options.unsupported ?? false;
  }
}
