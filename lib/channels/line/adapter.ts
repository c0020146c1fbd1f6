import { HTTPFetchError, messagingApi } from "@line/bot-sdk";
import { log } from "../../log";
import { OUTBOUND_TEXT_LIMIT, tooLongSentence } from "../text-limit";
import { downloadBytes } from "../../media/fetch-http";
import {
  DeliveryError,
  type ActivityTarget,
  type ChannelAdapter,
  type MediaDownload,
  type MediaDownloadRequest,
  type SendRequest,
  type SendResult,
} from "../types";

/** LINE reply tokens expire about a minute after the event; leave a margin. */
const REPLY_TOKEN_TTL_MS = 50_000;
const LINE_TEXT_LIMIT = OUTBOUND_TEXT_LIMIT;
/** The loading animation's length (LINE takes 5–60 s in steps of 5); renewed before it ends. */
const LOADING_SECONDS = 20;

export type LineChannelOptions = {
  accessToken: string;
  apiRoot?: string;
  /** The content host (LINE_DATA_API_ROOT); default LINE's api-data.line.me. */
  dataApiRoot?: string;
};

const DATA_API_ROOT = "https://api-data.line.me";

/**
 * Sends with the event's single-use reply token while it is fresh (free, and it
 * can quote the user's message), else with a push message. A reply token is only
 * ever offered once (the reply tool's at-most-once rule), and a push follows only
 * when LINE refused the token (400), never after an unknown outcome.
 */
export function createLineChannel(options: LineChannelOptions): ChannelAdapter {
  const client = new messagingApi.MessagingApiClient({
    channelAccessToken: options.accessToken,
    ...(options.apiRoot ? { baseURL: options.apiRoot } : {}),
  });
  const failure = (error: unknown) => {
    if (error instanceof HTTPFetchError) {
      // A 5xx or 429 may follow a message that went out; any other status is a refusal.
      const retryable = error.status >= 500 || error.status === 429;
      return new DeliveryError(`LINE ${error.status}: ${error.body?.slice(0, 200) ?? error.statusText}`, {
        outcome: retryable ? "unknown" : "not_sent",
        retryable,
      });
    }
    return new DeliveryError(`LINE send failed: ${(error as Error).message}`, { outcome: "not_sent", retryable: false });
  };
  return {
    name: "line",
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
    /**
     * GET <data api root>/v2/bot/message/{id}/content with the channel access token. LINE
     * answers 202 while it still prepares a video or audio: not yet, try again later.
     * A 404 or 410 (expired, or the user unsent it) is final.
     */
    async downloadMedia(request: MediaDownloadRequest): Promise<MediaDownload> {
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
    },
    async send(request: SendRequest): Promise<SendResult> {
      // Never cut: refused whole (the API refuses longer operator texts before this).
      if (request.text.length > LINE_TEXT_LIMIT)
        throw new DeliveryError(`not sent: ${tooLongSentence(request.text.length, LINE_TEXT_LIMIT)}`, {
          outcome: "not_sent",
          retryable: false,
        });
      const text = request.text;
      const platform = request.platform ?? {};
      const replyToken = typeof platform.replyToken === "string" ? platform.replyToken : null;
      const fresh = replyToken && Date.now() - Number(platform.receivedAt ?? 0) < REPLY_TOKEN_TTL_MS;
      if (fresh) {
        try {
          const quoteToken = typeof platform.quoteToken === "string" ? platform.quoteToken : undefined;
          const response = await client.replyMessage({
            replyToken,
            messages: [{ type: "text", text, ...(quoteToken ? { quoteToken } : {}) }],
          });
          return { platformMessageId: response.sentMessages[0]?.id ?? `reply-${Date.now()}`, sentAt: new Date() };
        } catch (error) {
          if (!(error instanceof HTTPFetchError && error.status === 400)) throw failure(error);
          log.info("line.reply_token_refused", { chatId: request.chatId });
        }
      }
      try {
        const response = await client.pushMessage({ to: request.chatId, messages: [{ type: "text", text }] });
        return { platformMessageId: response.sentMessages[0]?.id ?? `push-${Date.now()}`, sentAt: new Date() };
      } catch (error) {
        throw failure(error);
      }
    },
  };
}
