import { HTTPFetchError, type messagingApi } from "@line/bot-sdk";
import { log } from "../../log";
import { splitText } from "../split-text";
import { downloadBytes } from "../../media/fetch-http";
import type { MediaDownload, MediaDownloadRequest } from "../../media/types";
import { networkCodeOf, neverConnected } from "../never-connected";
import { LineTimeoutError, lineMessagingApi } from "./messaging-api";
import {
  DeliveryError,
  type ActivityTarget,
  type ChannelAdapter,
  type MediaSendRequest,
  type OutboundMediaFacts,
  type SendRequest,
  type SendResult,
} from "../types";

/** LINE reply tokens expire about a minute after the event; leave a margin. */
const REPLY_TOKEN_TTL_MS = 50_000;
/**
 * LINE's limits (Messaging API reference): a text message holds at most 5,000 characters
 * counted in UTF-16 code units, and one reply or push call carries at most 5 messages.
 */
const LINE_TEXT_LIMIT = 5_000;
const LINE_MESSAGES_PER_CALL = 5;
/** LINE's own limits for what it fetches (Messaging API reference: image, video and audio messages). */
const LINE_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const LINE_VIDEO_AUDIO_MAX_BYTES = 200 * 1024 * 1024;

/**
 * Why LINE cannot take a file, or null: it has no file message at all, fetches
 * images (JPEG, PNG), video (MP4) and audio (M4A, with its duration) from an HTTPS link.
 */
export function lineMediaRefusal(media: OutboundMediaFacts): string | null {
  if (media.kind === "document")
    return "LINE has no message type for files: only images, MP4 video and M4A audio can be sent there (share a link in a text message instead)";
  if (!media.hasLinks)
    return "LINE fetches images, video and audio from an HTTPS link to this server: set PUBLIC_URL to its public HTTPS address to send files to LINE";
  if (media.kind === "photo" && !/^image\/(jpeg|png)$/.test(media.mimeType)) return "LINE takes JPEG or PNG images only";
  if (media.kind === "photo" && media.sizeBytes > LINE_IMAGE_MAX_BYTES) return "LINE takes images of at most 10 MB";
  if (media.kind === "video" && media.mimeType !== "video/mp4") return "LINE takes MP4 video only";
  if ((media.kind === "audio" || media.kind === "voice") && !/^audio\/(mp4|x-m4a|m4a)$/.test(media.mimeType))
    return "LINE takes M4A audio only";
  if ((media.kind === "audio" || media.kind === "voice") && !media.durationSeconds)
    return "LINE needs the audio's duration, and it could not be read from this file";
  if (media.sizeBytes > LINE_VIDEO_AUDIO_MAX_BYTES) return "LINE takes files of at most 200 MB";
  return null;
}

/** The loading animation's length (LINE takes 5–60 s in steps of 5); renewed before it ends. */
const LOADING_SECONDS = 20;

/**
 * Where LINE is reached (LINE_API_ROOT, LINE_DATA_API_ROOT): the same for the environment's
 * channel and every channel added as a record, so a proxy or a test double serves them all.
 */
export type LineHosts = {
  apiRoot?: string;
  /** The content host (LINE_DATA_API_ROOT); default LINE's api-data.line.me. */
  dataApiRoot?: string;
};

export type LineChannelOptions = LineHosts & {
  accessToken: string;
  /** The adapter's name in addresses (default "line"; a channel added as a record: "line-<id>"). */
  name?: string;
  /** How long one Messaging API call may take (default 30 s, as Telegram's). */
  timeoutMs?: number;
};

const DATA_API_ROOT = "https://api-data.line.me";

/** Maps a LINE API failure to what the operator sees and whether a retry could help. */
function failure(error: unknown): DeliveryError {
  if (error instanceof LineTimeoutError)
    return new DeliveryError(`${error.message}: the message may have gone out`, { outcome: "unknown", retryable: true });
  if (error instanceof HTTPFetchError) {
    // A 5xx or 429 may follow a message that went out; any other status is a refusal.
    const retryable = error.status >= 500 || error.status === 429;
    return new DeliveryError(`LINE ${error.status}: ${error.body?.slice(0, 200) ?? error.statusText}`, {
      outcome: retryable ? "unknown" : "not_sent",
      retryable,
    });
  }
  // No connection at all: nothing sent. A connection cut after the request was written: maybe sent (as Telegram's).
  const code = networkCodeOf(error);
  return neverConnected(code)
    ? new DeliveryError(`LINE unreachable: ${(error as Error).message} (${code})`, { outcome: "not_sent", retryable: true })
    : new DeliveryError(`LINE send failed: ${(error as Error).message}${code ? ` (${code})` : ""}`, {
        outcome: "unknown",
        retryable: false,
      });
}

/**
 * GET <data api root>/v2/bot/message/{id}/content with the channel access token. LINE
 * answers 202 while it still prepares a video or audio: not yet, try again later.
 * A 404 or 410 (expired, or the user unsent it) is final.
 */
function lineDownloader(options: LineChannelOptions) {
  return async (request: MediaDownloadRequest): Promise<MediaDownload> => {
    if (request.declaredSize && request.declaredSize > request.maxBytes)
      return { ok: false, outcome: "too_large", sizeBytes: request.declaredSize };
    const root = (options.dataApiRoot ?? DATA_API_ROOT).replace(/\/+$/, "");
    return downloadBytes(`${root}/v2/bot/message/${encodeURIComponent(request.sourceRef)}/content`, {
      headers: { authorization: `Bearer ${options.accessToken}` },
      maxBytes: request.maxBytes,
      signal: request.signal,
      label: "LINE",
      notReady: (response) => (response.statusCode === 202 ? "LINE is still preparing the content" : null),
    });
  };
}

/**
 * Sends with the event's single-use reply token while it is fresh (free, and it
 * can quote the user's message), else with a push message. A reply token is only
 * ever offered once (the reply tool's at-most-once rule), and a push follows only
 * when LINE refused the token (400), never after an unknown outcome.
 */
export function createLineChannel(options: LineChannelOptions): ChannelAdapter {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const client = lineMessagingApi(options.accessToken, { apiRoot: options.apiRoot, timeoutMs });
  return {
    name: options.name ?? "line",
    mode: "live",
    activityRenewMs: (LOADING_SECONDS - 2) * 1000,
    async showActivity(target: ActivityTarget) {
      // LINE shows the animation in one-to-one chats only; a group or room has none.
      if (target.chatType !== "private") return;
      try {
        await client.showLoadingAnimation({ chatId: target.chatId, loadingSeconds: LOADING_SECONDS });
      } catch (error) {
        throw failure(error);
      }
    },
    downloadMedia: lineDownloader(options),
    /**
     * A text over LINE's 5,000 is sent as consecutive text messages (split as on Telegram):
     * the first five with the reply token (the first one quoting), the rest by push, five
     * a call, in order. Each part goes out once: after a part went out, a failure is an
     * unknown outcome that is never retried, so no part reaches the user twice.
     */
    async send(request: SendRequest): Promise<SendResult> {
      const messages: messagingApi.TextMessage[] = splitText(request.text, LINE_TEXT_LIMIT).map((text) => ({ type: "text", text }));
      const platform = request.platform ?? {};
      const replyToken = typeof platform.replyToken === "string" ? platform.replyToken : null;
      const fresh = replyToken && Date.now() - Number(platform.receivedAt ?? 0) < REPLY_TOKEN_TTL_MS;
      let first: SendResult | undefined;
      let sent = 0;
      if (fresh) {
        try {
          const quoteToken = typeof platform.quoteToken === "string" ? platform.quoteToken : undefined;
          const batch = messages.slice(0, LINE_MESSAGES_PER_CALL);
          const response = await client.replyMessage({
            replyToken,
            messages: batch.map((message, i) => (i === 0 && quoteToken ? { ...message, quoteToken } : message)),
          });
          first = { platformMessageId: response?.sentMessages?.[0]?.id ?? `reply-${Date.now()}`, sentAt: new Date() };
          sent = batch.length;
        } catch (error) {
          if (!(error instanceof HTTPFetchError && error.status === 400)) throw failure(error);
          log.info("line.reply_token_refused", { chatId: request.chatId });
        }
      }
      try {
        for (; sent < messages.length; ) {
          const batch = messages.slice(sent, sent + LINE_MESSAGES_PER_CALL);
          const response = await client.pushMessage({ to: request.chatId, messages: batch });
          first ??= { platformMessageId: response?.sentMessages?.[0]?.id ?? `push-${Date.now()}`, sentAt: new Date() };
          sent += batch.length;
        }
      } catch (error) {
        const cause = failure(error);
        if (!first) throw cause;
        // Part of a long text already went out: the user has something, and it is not sent again.
        log.warn("line.send_failed", { chatId: request.chatId, error: cause.message, sentParts: sent, parts: messages.length });
        throw new DeliveryError(`${cause.message} (after ${sent} of ${messages.length} parts were sent)`, {
          outcome: "unknown",
          retryable: false,
        });
      }
      return first!;
    },
    mediaRefusal: lineMediaRefusal,
    /** The file by its signed link (LINE fetches it when the user opens it), the caption as a text message after it, in one push. */
    async sendMedia(request: MediaSendRequest): Promise<SendResult> {
      const refusal = lineMediaRefusal({ ...request.media, hasLinks: Boolean(request.media.links) });
      if (refusal) throw new DeliveryError(`not sent: ${refusal}`, { outcome: "not_sent", retryable: false });
      const { original, preview } = request.media.links!;
      const file: messagingApi.Message =
        request.media.kind === "photo"
          ? { type: "image", originalContentUrl: original, previewImageUrl: preview }
          : request.media.kind === "video"
            ? { type: "video", originalContentUrl: original, previewImageUrl: preview }
            : { type: "audio", originalContentUrl: original, duration: Math.round(request.media.durationSeconds! * 1000) };
      const messages: messagingApi.Message[] = request.caption ? [file, { type: "text", text: request.caption }] : [file];
      // A push, never the reply token: an operator's file comes later than the token's minute.
      try {
        const response = await client.pushMessage({ to: request.chatId, messages });
        return { platformMessageId: response?.sentMessages?.[0]?.id ?? `push-${Date.now()}`, sentAt: new Date() };
      } catch (error) {
        throw failure(error);
      }
    },
  };
}
