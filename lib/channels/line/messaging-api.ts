import { HTTPFetchError, type messagingApi } from "@line/bot-sdk";

const API_ROOT = "https://api.line.me";

/**
 * A Messaging API call given up after its time limit. It fails as a 5xx does: its
 * outcome is unknown (the message may have gone out), so it is never sent again.
 */
export class LineTimeoutError extends Error {
  constructor(ms: number) {
    super(`LINE did not answer within ${ms / 1000} s`);
    this.name = "LineTimeoutError";
  }
}

/**
 * The Messaging API calls this product makes, over fetch with a time limit. Written
 * here rather than through the SDK's client, which calls the global fetch with no
 * signal: a call given up on by a timer went on holding its socket until undici's
 * own 300 s limit, one per attempt while LINE did not answer. Aborting the fetch
 * closes it. A status LINE refuses with throws the SDK's `HTTPFetchError`, as its
 * client did; no connection throws fetch's TypeError (with the network code as cause).
 */
export function lineMessagingApi(accessToken: string, options: { apiRoot?: string; timeoutMs: number }) {
  const root = (options.apiRoot ?? API_ROOT).replace(/\/+$/, "");
  async function call<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      // The signal bounds the answer's body too, not only its headers.
      const response = await fetch(`${root}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
        // LINE's API does not redirect: one that does is not LINE, and is not sent the token again.
        redirect: "error",
      });
      const text = await response.text();
      if (!response.ok)
        throw new HTTPFetchError(`${response.status} - ${response.statusText}`, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: text,
        });
      return (text ? JSON.parse(text) : {}) as T;
    } catch (error) {
      if ((error as Error | null)?.name === "TimeoutError") throw new LineTimeoutError(options.timeoutMs);
      throw error;
    }
  }
  return {
    replyMessage: (request: messagingApi.ReplyMessageRequest) =>
      call<messagingApi.ReplyMessageResponse>("POST", "/v2/bot/message/reply", request),
    pushMessage: (request: messagingApi.PushMessageRequest) =>
      call<messagingApi.PushMessageResponse>("POST", "/v2/bot/message/push", request),
    showLoadingAnimation: (request: messagingApi.ShowLoadingAnimationRequest) =>
      call<object>("POST", "/v2/bot/chat/loading/start", request),
    getBotInfo: () => call<messagingApi.BotInfoResponse>("GET", "/v2/bot/info"),
    setWebhookEndpoint: (request: messagingApi.SetWebhookEndpointRequest) =>
      call<object>("PUT", "/v2/bot/channel/webhook/endpoint", request),
  };
}
