import { randomBytes } from "node:crypto";
import { autoRetry } from "@grammyjs/auto-retry";
import { Api, Bot } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import type { MediaDownload, MediaDownloadRequest } from "../../media/types";
import { DeliveryError, type ChannelAdapter } from "../types";
import { answerDrafts, showTyping, TYPING_RENEW_MS } from "./activity";
import { refused, telegramChangeRefusal } from "./delivery-error";
import { fileDownloader } from "./download";
import { botIdentity, type IdentityState } from "./identity";
import type { BotIdentity } from "./parse";
import { startSandboxBotApi, type SandboxBotApi } from "./sandbox-bot-api";
import { SANDBOX_FILE_ID } from "./sandbox-files";
import { deleteMessage, editMessage, sendMedia, sendText } from "./send";

export { TELEGRAM_TEXT_LIMIT, telegramChangeRefusal, toDeliveryError } from "./delivery-error";
export type { IdentityState } from "./identity";

export type TelegramChannel = ChannelAdapter & {
  readonly bot: Bot;
  /**
   * The bot's id and username: getMe in the background with bounded retries when
   * live (never grammY's `bot.init()`, which retries forever), configured in the
   * sandbox. Rejects once the retries are spent; the next call starts again.
   */
  identity(): Promise<BotIdentity>;
  /** The identity if known, else how fetching it goes; never waits on the network. */
  identityState(): IdentityState;
  /** Whether answers are previewed with sendMessageDraft, or why not (the Bot API refused the method). */
  draftsState(): { state: "on" } | { state: "unsupported"; error: string };
  /** Sandbox only: the next send fails like Telegram would (the simulator's "next send" control). */
  failNextSend?: (kind: SimulatedSendFailure | null) => void;
};

/** Platform failures the simulator can play, each as the live adapter would report it. */
export const SIMULATED_SEND_FAILURES = {
  refused: () =>
    new DeliveryError("Telegram 400: Bad Request: not enough rights to send text messages to the chat", {
      outcome: "not_sent",
      retryable: false,
    }),
  server_error: () => new DeliveryError("Telegram 500: Internal Server Error", { outcome: "unknown", retryable: true }),
  timeout: () =>
    new DeliveryError("Telegram unreachable: Network request for 'sendMessage' failed! (timeout)", { outcome: "unknown", retryable: true }),
} as const;
export type SimulatedSendFailure = keyof typeof SIMULATED_SEND_FAILURES;

export type TelegramChannelOptions = {
  /** Unset: sandbox mode, outbound messages are recorded but not sent. */
  token?: string;
  /** The adapter's name in addresses (default "telegram"; a bot added as a record: "telegram-<id>"). */
  name?: string;
  /** What getMe answered before (a bot added as a record): the identity is known without asking again. */
  botInfo?: UserFromGetMe;
  /** Another Bot API server (self-hosted, or a fake in tests). */
  apiRoot?: string;
  sandboxUsername: string;
  /** Sandbox: the bytes of a file the simulator's user sent, by sha256 (sandbox-files.ts), for the sandbox's own Bot API. */
  sandboxFiles?: (sha256: string) => Promise<Uint8Array | null>;
  /** Bot API request timeout (default 30 s). */
  timeoutSeconds?: number;
  /** getMe attempts before giving up until the next demand (default 5), and the pause before attempt n (ms). */
  identityAttempts?: number;
  identityBackoffMs?: (attempt: number) => number;
};

const SANDBOX_TOKEN = "0:sandbox";

let sandboxCounter = 0;
/** Sandbox message ids: unique, increasing, and far from the simulator's user ids. */
function sandboxMessageId(): string {
  sandboxCounter = (sandboxCounter + 1) % 1000;
  return String(Date.now() * 1000 + sandboxCounter);
}

/**
 * A live bot (a token) or the sandbox (none). A live bot's operations are one function
 * each: sending (send.ts), typing and drafts (activity.ts), identity (identity.ts) and
 * downloads (download.ts), each given the Bot API client it calls.
 */
export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  if (!options.token) return sandboxChannel(options.sandboxUsername, options.apiRoot, options.sandboxFiles);
  const apiRoot = options.apiRoot ? { apiRoot: options.apiRoot } : {};
  // A hung Bot API must not hold a turn for grammY's default 500 s.
  const bot = new Bot(options.token, { client: { ...apiRoot, timeoutSeconds: options.timeoutSeconds ?? 30 } });
  // 429s are retried after retry_after (nothing was sent). 5xx and network errors are
  // not: the message may have gone out, and a user must never get two answers.
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowInternalServerErrors: true, rethrowHttpErrors: true }));
  // Typing actions and drafts skip grammY's auto-retry: a 429 drops them (never the answer's wait).
  const bestEffort = new Api(options.token, { ...apiRoot, timeoutSeconds: Math.min(options.timeoutSeconds ?? 30, 10) });
  return {
    name: options.name ?? "telegram",
    mode: "live",
    bot,
    ...botIdentity(bot, options),
    activityRenewMs: TYPING_RENEW_MS,
    showActivity: (target) => showTyping(bestEffort, target),
    ...answerDrafts(bestEffort),
    downloadMedia: fileDownloader(bestEffort, options.token, options.apiRoot),
    send: (request) => sendText(bot.api, request),
    sendMedia: (request) => sendMedia(bot.api, request),
    editMessage: (request) => editMessage(bot.api, request),
    deleteMessage: (request) => deleteMessage(bot.api, request),
  };
}

/**
 * The sandbox has no bot token: Telegram's files cannot be downloaded. The files the
 * simulator's users send are served by the sandbox's own Bot API on loopback
 * (sandbox-bot-api.ts, started at the first download) and fetched through the same
 * downloader as a live bot's. With TELEGRAM_API_ROOT set (a fake or self-hosted Bot
 * API for demos and end-to-end tests) other files are fetched from it with the
 * sandbox's placeholder token; without it they are recorded as unsupported, saying why.
 */
function sandboxChannel(
  username: string,
  apiRoot: string | undefined,
  files: ((sha256: string) => Promise<Uint8Array | null>) | undefined,
): TelegramChannel {
  let ownApi: Promise<SandboxBotApi> | null = null;
  // The own Bot API serves any stored file by its hash to whoever on this host knows its port and
  // token: a token of this process only, never the well-known placeholder.
  const ownToken = `0:${randomBytes(16).toString("hex")}`;
  const own = async (request: MediaDownloadRequest) => {
    ownApi ??= startSandboxBotApi(ownToken, files!);
    const { root } = await ownApi;
    return fileDownloader(new Api(ownToken, { apiRoot: root, timeoutSeconds: 10 }), ownToken, root)(request);
  };
  const configured = apiRoot ? fileDownloader(new Api(SANDBOX_TOKEN, { apiRoot, timeoutSeconds: 10 }), SANDBOX_TOKEN, apiRoot) : null;
  const downloadMedia = async (request: MediaDownloadRequest): Promise<MediaDownload> => {
    if (files && SANDBOX_FILE_ID.test(request.sourceRef)) return own(request);
    if (configured) return configured(request);
    return {
      ok: false,
      outcome: "unsupported",
      reason:
        "the Telegram sandbox has no bot token to download files with (set TELEGRAM_BOT_TOKEN, or TELEGRAM_API_ROOT to a Bot API that serves them); the simulator's files are served by the sandbox",
    };
  };
  const botInfo = {
    id: 1,
    is_bot: true,
    first_name: "Switchboard sandbox",
    username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  } as UserFromGetMe;
  const bot = new Bot(SANDBOX_TOKEN, { botInfo });
  let nextFailure: SimulatedSendFailure | null = null;
  return {
    name: "telegram",
    mode: "sandbox",
    bot,
    identity: async () => ({ id: botInfo.id, username }),
    identityState: () => ({ state: "ready", identity: { id: botInfo.id, username } }),
    draftsState: () => ({ state: "on" }),
    ...(files || configured ? { downloadMedia } : {}),
    failNextSend: (kind) => {
      nextFailure = kind;
    },
    async send() {
      if (nextFailure) {
        const failure = SIMULATED_SEND_FAILURES[nextFailure]();
        nextFailure = null;
        throw failure;
      }
      // Telegram dates have whole seconds; the sandbox keeps that shape.
      return { platformMessageId: sandboxMessageId(), sentAt: new Date(Math.floor(Date.now() / 1000) * 1000) };
    },
    // A file is recorded like a text: the message and its attachment are stored, nothing leaves.
    async sendMedia(request) {
      return this.send({ chatId: request.chatId, text: request.caption });
    },
    // The simulator's chat is the stored history: an edit or deletion Telegram would take is recorded, nothing leaves.
    async editMessage(request) {
      const refusal = telegramChangeRefusal(request);
      if (refusal) throw refused(refusal);
    },
    async deleteMessage(request) {
      const refusal = telegramChangeRefusal(request);
      if (refusal) throw refused(refusal);
    },
  };
}
