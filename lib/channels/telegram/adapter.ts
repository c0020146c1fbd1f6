import { randomBytes } from "node:crypto";
import { autoRetry } from "@grammyjs/auto-retry";
import { Api, Bot, GrammyError, HttpError, InputFile } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { log } from "../../log";
import { downloadBytes } from "../../media/fetch-http";
import type { MediaDownload, MediaDownloadRequest } from "../../media/types";
import {
  DeliveryError,
  type ActivityTarget,
  type ChannelAdapter,
  type EditRequest,
  type MediaSendRequest,
  type SentMessageRef,
  type SendRequest,
  type SendResult,
} from "../types";
import { splitText } from "../split-text";
import { splitTopicChatId } from "../topic-key";
import { networkCodeOf, neverConnected } from "../never-connected";
import type { BotIdentity } from "./parse";
import { startSandboxBotApi, type SandboxBotApi } from "./sandbox-bot-api";
import { SANDBOX_FILE_ID } from "./sandbox-files";

/** Telegram's limit for one message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** Whether the bot's identity (getMe) is known: webhooks need it to tell mentions and replies to the bot. */
export type IdentityState =
  | { state: "ready"; identity: BotIdentity }
  | { state: "connecting"; attempts: number; error?: string }
  | { state: "failed"; attempts: number; error: string };

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

/** Telegram's limit for a file's caption. */
const TELEGRAM_CAPTION_LIMIT = 1024;

/**
 * Why Telegram cannot take this edit or deletion as one call, or null. A text over
 * 4,096 went out as several messages and only the first one's id is kept: Telegram
 * edits and deletes one message at a time, so such a message is refused whole rather
 * than changed in part. A new text must fit in one message too.
 */
export function telegramChangeRefusal(request: SentMessageRef & { text?: string; caption?: boolean }): string | null {
  if (request.currentText.length > TELEGRAM_TEXT_LIMIT)
    return `it went out as ${splitText(request.currentText, TELEGRAM_TEXT_LIMIT).length} Telegram messages (over 4,096 characters), which cannot be changed as one`;
  const limit = request.caption ? TELEGRAM_CAPTION_LIMIT : TELEGRAM_TEXT_LIMIT;
  if (request.text !== undefined && request.text.length > limit)
    return `Telegram takes at most ${limit.toLocaleString("en")} characters in ${request.caption ? "a caption" : "one message"}; the new text has ${request.text.length.toLocaleString("en")}`;
  return null;
}

const refused = (reason: string) => new DeliveryError(reason, { outcome: "not_sent", retryable: false });

/** Maps Bot API failures to what the operator sees and whether a retry could help. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof GrammyError) {
    const retryable = error.error_code === 429 || error.error_code >= 500;
    // 403 "bot was blocked by the user" / "bot was kicked from the group chat": no send will work.
    const membership =
      error.error_code !== 403
        ? null
        : /blocked/i.test(error.description)
          ? "blocked"
          : /kicked|not a member|removed/i.test(error.description)
            ? "removed"
            : /deactivated/i.test(error.description)
              ? "blocked"
              : null;
    // A 4xx is a refusal (nothing sent); a 5xx may come after the message went out.
    const retryAfter = error.parameters?.retry_after;
    return new DeliveryError(`Telegram ${error.error_code}: ${error.description}`, {
      outcome: error.error_code >= 500 ? "unknown" : "not_sent",
      retryable,
      membership,
      ...(retryAfter ? { retryAfterMs: retryAfter * 1000 } : {}),
      // An older (self-hosted) Bot API server answers 404 "Not Found" to a method it lacks.
      unsupported: error.error_code === 404 || (error.error_code === 400 && /method .*not found|unknown method/i.test(error.description)),
    });
  }
  if (error instanceof HttpError) {
    // No connection at all: nothing sent. A timeout or a cut connection: maybe sent.
    const code = networkCodeOf(error.error);
    const refused = neverConnected(code);
    return new DeliveryError(`Telegram unreachable: ${error.message}${code ? ` (${code})` : ""}`, {
      outcome: refused ? "not_sent" : "unknown",
      retryable: true,
    });
  }
  return new DeliveryError(`Telegram send failed: ${(error as Error).message}`, { outcome: "unknown", retryable: false });
}

const SANDBOX_TOKEN = "0:sandbox";

let sandboxCounter = 0;
/** Sandbox message ids: unique, increasing, and far from the simulator's user ids. */
function sandboxMessageId(): string {
  sandboxCounter = (sandboxCounter + 1) % 1000;
  return String(Date.now() * 1000 + sandboxCounter);
}

export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  if (!options.token) return sandboxChannel(options.sandboxUsername, options.apiRoot, options.sandboxFiles);
  // A hung Bot API must not hold a turn for grammY's default 500 s.
  const bot = new Bot(options.token, {
    client: { ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}), timeoutSeconds: options.timeoutSeconds ?? 30 },
  });
  // 429s are retried after retry_after (nothing was sent). 5xx and network errors are
  // not: the message may have gone out, and a user must never get two answers.
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowInternalServerErrors: true, rethrowHttpErrors: true }));
  const attempts = options.identityAttempts ?? 5;
  const backoff = options.identityBackoffMs ?? ((n: number) => Math.min(1000 * 2 ** (n - 1), 15_000));
  // getMe is bounded on its own: the webhook waits for nobody, but a stuck fetch would block the next one.
  const getMeTimeoutMs = Math.min((options.timeoutSeconds ?? 30) * 1000, 10_000);
  // Typing actions and drafts skip grammY's auto-retry: a 429 drops them (never the answer's wait).
  const bestEffort = new Api(options.token, {
    ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}),
    timeoutSeconds: Math.min(options.timeoutSeconds ?? 30, 10),
  });
  let draftsRefused: string | null = null;
  let state: IdentityState = options.botInfo
    ? { state: "ready", identity: { id: options.botInfo.id, username: options.botInfo.username } }
    : { state: "connecting", attempts: 0 };
  if (options.botInfo) bot.botInfo = options.botInfo;
  let pending: Promise<BotIdentity> | undefined;
  const fetchIdentity = async (): Promise<BotIdentity> => {
    for (let n = 1; ; n++) {
      try {
        const me = await bot.api.getMe(AbortSignal.timeout(getMeTimeoutMs) as Parameters<typeof bot.api.getMe>[0]);
        bot.botInfo = me;
        state = { state: "ready", identity: { id: me.id, username: me.username } };
        log.info("telegram.identity_ready", { username: me.username, attempts: n });
        return state.identity;
      } catch (error) {
        const reason = toDeliveryError(error).message;
        if (n >= attempts) {
          state = { state: "failed", attempts: n, error: reason };
          log.error("telegram.getme_failed", { attempts: n, error: reason });
          throw new DeliveryError(`getMe failed after ${n} attempts: ${reason}`, { outcome: "not_sent", retryable: true });
        }
        state = { state: "connecting", attempts: n, error: reason };
        log.warn("telegram.getme_retry", { attempt: n, error: reason });
        await new Promise((resolve) => setTimeout(resolve, backoff(n)).unref?.());
      }
    }
  };
  return {
    name: options.name ?? "telegram",
    mode: "live",
    bot,
    identity() {
      if (state.state === "ready") return Promise.resolve(state.identity);
      pending ??= fetchIdentity().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    identityState: () => state,
    activityRenewMs: TYPING_RENEW_MS,
    async showActivity(target: ActivityTarget) {
      const { chatId, threadId } = address(target);
      try {
        await bestEffort.sendChatAction(chatId, "typing", threadId ? { message_thread_id: threadId } : {});
      } catch (error) {
        throw toDeliveryError(error);
      }
    },
    downloadMedia: fileDownloader(bestEffort, options.token, options.apiRoot),
    draftsFor: (target) => target.chatType === "private" && draftsRefused === null,
    draftsState: () => (draftsRefused === null ? { state: "on" } : { state: "unsupported", error: draftsRefused }),
    async sendDraft(target: ActivityTarget, draftId: number, text: string) {
      const { chatId, threadId } = address(target);
      try {
        await bestEffort.sendMessageDraft(Number(chatId), draftId, text, threadId ? { message_thread_id: threadId } : {});
      } catch (error) {
        const failure = toDeliveryError(error);
        if (failure.unsupported && draftsRefused === null) {
          draftsRefused = failure.message;
          log.warn("telegram.drafts_unsupported", { error: failure.message });
        }
        throw failure;
      }
    },
    async send(request: SendRequest): Promise<SendResult> {
      const parts = splitText(request.text, TELEGRAM_TEXT_LIMIT);
      // A forum topic's conversation is addressed "<chat>:topic:<thread>".
      const { chatId, topicId } = splitTopicChatId(request.chatId);
      const threadId = topicId ?? request.topicId;
      let first: SendResult | undefined;
      try {
        for (const [i, part] of parts.entries()) {
          const sent = await bot.api.sendMessage(chatId, part, {
            reply_parameters:
              i === 0 && request.replyToPlatformId
                ? { message_id: Number(request.replyToPlatformId), allow_sending_without_reply: true }
                : undefined,
            message_thread_id: threadId ? Number(threadId) : undefined,
            // Ranges of user text: code entities (nothing clickable), no preview of any link in it.
            ...(request.verbatim?.length && parts.length === 1
              ? {
                  entities: request.verbatim.map((range) => ({ type: "code" as const, ...range })),
                  link_preview_options: { is_disabled: true },
                }
              : {}),
          });
          first ??= { platformMessageId: String(sent.message_id), sentAt: new Date(sent.date * 1000) };
        }
      } catch (error) {
        const cause = toDeliveryError(error);
        // Part of a long text already went out: the user has something.
        const failure = first
          ? new DeliveryError(`${cause.message} (after the first part was sent)`, { outcome: "unknown", retryable: false })
          : cause;
        log.warn("telegram.send_failed", {
          chatId: request.chatId,
          error: failure.message,
          outcome: failure.outcome,
          sentParts: first ? 1 : 0,
        });
        throw failure;
      }
      return first!;
    },
    async editMessage(request: EditRequest) {
      const refusal = telegramChangeRefusal(request);
      if (refusal) throw refused(refusal);
      const { chatId } = splitTopicChatId(request.chatId);
      const id = Number(request.platformMessageId);
      try {
        if (request.caption) await bot.api.editMessageCaption(chatId, id, { caption: request.text });
        else await bot.api.editMessageText(chatId, id, request.text);
      } catch (error) {
        throw toDeliveryError(error);
      }
    },
    async deleteMessage(request: SentMessageRef) {
      const refusal = telegramChangeRefusal(request);
      if (refusal) throw refused(refusal);
      try {
        await bot.api.deleteMessage(splitTopicChatId(request.chatId).chatId, Number(request.platformMessageId));
      } catch (error) {
        throw toDeliveryError(error);
      }
    },
    async sendMedia(request: MediaSendRequest): Promise<SendResult> {
      const { chatId, topicId } = splitTopicChatId(request.chatId);
      const threadId = topicId ?? request.topicId;
      const file = new InputFile(request.media.bytes, request.media.fileName);
      const other = {
        ...(request.caption ? { caption: request.caption } : {}),
        ...(request.replyToPlatformId
          ? { reply_parameters: { message_id: Number(request.replyToPlatformId), allow_sending_without_reply: true } }
          : {}),
        ...(threadId ? { message_thread_id: Number(threadId) } : {}),
      };
      try {
        // The method by what the bytes are (sniffed): each shows the file its own way in the chat.
        const sent = await {
          photo: () => bot.api.sendPhoto(chatId, file, other),
          voice: () => bot.api.sendVoice(chatId, file, other),
          audio: () => bot.api.sendAudio(chatId, file, other),
          video: () => bot.api.sendVideo(chatId, file, { ...other, supports_streaming: true }),
          document: () => bot.api.sendDocument(chatId, file, other),
        }[request.media.kind]();
        return { platformMessageId: String(sent.message_id), sentAt: new Date(sent.date * 1000) };
      } catch (error) {
        const failure = toDeliveryError(error);
        log.warn("telegram.send_media_failed", {
          chatId: request.chatId,
          kind: request.media.kind,
          error: failure.message,
          outcome: failure.outcome,
        });
        throw failure;
      }
    },
  };
}

const DEFAULT_API_ROOT = "https://api.telegram.org";

/**
 * Telegram's two steps: getFile (the file_id stays valid; the path it gives lasts
 * about an hour, so it is asked for at each attempt), then
 * `<api root>/file/bot<token>/<file_path>`. The Bot API refuses files over 20 MB
 * ("file is too big"): that is too_large, as a declared size over the limit is
 * before any request. The token is in the URL; a reason that repeats it is scrubbed where it is
 * recorded (lib/media/fetch-job.ts).
 */
function fileDownloader(api: Api, token: string, apiRoot: string | undefined) {
  return async (request: MediaDownloadRequest): Promise<MediaDownload> => {
    if (request.declaredSize && request.declaredSize > request.maxBytes)
      return { ok: false, outcome: "too_large", sizeBytes: request.declaredSize };
    let file: Awaited<ReturnType<Api["getFile"]>>;
    try {
      file = await api.getFile(request.sourceRef, request.signal as Parameters<Api["getFile"]>[1]);
    } catch (error) {
      if (error instanceof GrammyError && /file is too big/i.test(error.description))
        return { ok: false, outcome: "too_large", sizeBytes: request.declaredSize ?? null };
      const failure = toDeliveryError(error);
      return {
        ok: false,
        outcome: failure.retryable || request.signal.aborted ? "retry" : "failed",
        reason: `getFile: ${failure.message}`,
      };
    }
    if (file.file_size && file.file_size > request.maxBytes) return { ok: false, outcome: "too_large", sizeBytes: file.file_size };
    if (!file.file_path) return { ok: false, outcome: "failed", reason: "Telegram gave no file_path for the file" };
    const root = (apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
    const path = file.file_path.split("/").map(encodeURIComponent).join("/");
    return downloadBytes(`${root}/file/bot${token}/${path}`, { maxBytes: request.maxBytes, signal: request.signal, label: "Telegram" });
  };
}

/** Telegram shows a chat action for 5 s: renewed a little before it fades. */
const TYPING_RENEW_MS = 4_500;

/** A chat (or forum topic) address as the Bot API takes it. */
function address(target: ActivityTarget): { chatId: string; threadId?: number } {
  const { chatId, topicId } = splitTopicChatId(target.chatId);
  const thread = topicId ?? target.topicId;
  return { chatId, ...(thread ? { threadId: Number(thread) } : {}) };
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
