import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

/**
 * A `fetch` for the model providers' JSON calls, over node:http(s) with keep-alive
 * (hand-written; no library does this). Node's global fetch (undici, with web
 * streams for the bodies) cost about 0.3 ms more CPU per model call than this on
 * the answer-latency benchmark's machine, and every turn makes at least one call.
 *
 * A plain call's response is buffered whole; a streamed one's (`"stream":true` in
 * the JSON body, or `alt=sse` in Google's address: a turn that shows drafts) is handed out as it arrives, as one web
 * stream over the socket (undici's fetch builds several per response: about 1 ms
 * more CPU per streamed call there). Anything other than a string body goes to the
 * global fetch unchanged. Failures look as fetch's do, because
 * the AI SDK tells them apart by shape: a connection error rejects with
 * `TypeError("fetch failed", { cause })` (the SDK makes it a retryable
 * APICallError), an abort with the signal's reason.
 */
export function createHttpFetch(fallback: typeof fetch = globalThis.fetch): typeof fetch {
  const agents: Record<string, http.Agent> = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  };
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : null;
    const body = init?.body;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || typeof body !== "string") return fallback(input, init);
    // OpenAI and Anthropic ask for a stream in the body, Google in the address (`?alt=sse`).
    const streamed = /"stream"\s*:\s*true/.test(body) || url.searchParams.get("alt") === "sse";
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    headers["content-length"] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      let response: http.IncomingMessage | null = null;
      const request = (url.protocol === "https:" ? https : http).request(
        url,
        { method: init?.method ?? "POST", headers, agent: agents[url.protocol] },
        (res) => {
          response = res;
          const status = res.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
          // Statuses that carry no body must be built without one (Response throws otherwise).
          const nullBody = status === 204 || status === 205 || status === 304;
          const init = { status, statusText: res.statusMessage ?? "", headers: responseHeaders };
          if (streamed && !nullBody) {
            // An abort while the body streams errors the body with the signal's reason, as fetch's does.
            res.once("close", () => signal?.removeEventListener("abort", onAbort));
            resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, init));
            return;
          }
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(new TypeError("fetch failed", { cause: error }));
          });
          res.on("end", () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(new Response(nullBody ? null : Buffer.concat(chunks), init));
          });
        },
      );
      const onAbort = () => {
        response?.destroy(signal?.reason);
        request.destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      request.on("error", (error) => {
        signal?.removeEventListener("abort", onAbort);
        if (signal?.aborted) reject(signal.reason);
        else reject(new TypeError("fetch failed", { cause: error }));
      });
      request.end(body);
    });
  }) as typeof fetch;
}
