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
  async function call<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T | null> {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    // A timer of our own, not AbortSignal.timeout: the abort must reach the body's read (below).
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(), options.timeoutMs);
    try {
      const response = await fetch(`${root}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: limit.signal,
        // LINE's API does not redirect: one that does is not LINE, and is not sent the token again.
        redirect: "error",
      });
      const text = await readBody(response, limit.signal);
      if (!response.ok)
        throw new HTTPFetchError(`${response.status} - ${response.statusText}`, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: text,
        });
      // As the SDK's client: an empty answer is null.
      return text ? (JSON.parse(text) as T) : null;
    } catch (error) {
      if (limit.signal.aborted) throw new LineTimeoutError(options.timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
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

/** LINE's answers are a few hundred bytes of JSON; a larger one is not read whole. */
const MAX_ANSWER_BYTES = 1 << 20;

/**
 * The answer's body, read under `signal`. undici stops watching a fetch's signal
 * for the body once it is collected as garbage (a reviewer measured a body trickled
 * a byte at a time outliving a 2 s limit by minutes under ordinary garbage), so the
 * read is cancelled here on abort, which also closes the connection.
 */
async function readBody(response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      // A cancelled read ends as if the body had: not a whole answer.
      if (signal.aborted) throw signal.reason;
      if (done) break;
      size += value.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => {});
        throw new Error(`LINE's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}
