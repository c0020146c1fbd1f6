import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type ChatRequest = {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown }[];
  tools?: unknown[];
  stream?: boolean;
};
/** What the fake model does for a request that is not a tool result: reply with text, or stay silent. */
export type Script = (request: ChatRequest) => (
  | { reply: string }
  | { silent: true }
  | { status: number; headers?: Record<string, string>; error?: Record<string, unknown> }
  /** Streamed requests: HTTP 200, the start of the reply, then this error chunk (a rate limit or overload reported mid-stream). */
  | { streamError: { message: string; type?: string; code?: string | number } }
) & {
  delayMs?: number;
  until?: Promise<unknown>;
  /** Streamed requests (`"stream": true`): the pause between chunks, and how many pieces the reply's arguments come in. */
  chunkDelayMs?: number;
  chunks?: number;
};

async function readJson(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const completion = (message: Record<string, unknown>, finish: string) => ({
  id: `chatcmpl-${Date.now()}`,
  object: "chat.completion",
  created: Math.floor(Date.now() / 1000),
  model: "fake",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
});

/** Chat completion chunks as OpenAI streams them (server-sent events), ending with usage and [DONE]. */
async function streamCompletion(
  res: import("node:http").ServerResponse,
  message: { content?: string; toolCall?: { id: string; name: string; arguments: string } },
  options: { chunks: number; chunkDelayMs: number },
) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const base = { id: `chatcmpl-${Date.now()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fake" };
  const write = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) =>
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`,
    );
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
  const pieces = (text: string) => {
    const size = Math.max(1, Math.ceil(text.length / options.chunks));
    return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
  };
  if (message.toolCall) {
    const { id, name } = message.toolCall;
    write({ role: "assistant", content: null, tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] }, null);
    for (const piece of pieces(message.toolCall.arguments)) {
      await pause();
      write({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null);
    }
  } else {
    write({ role: "assistant", content: "" }, null);
    for (const piece of pieces(message.content ?? "")) write({ content: piece }, null);
  }
  write({}, message.toolCall ? "tool_calls" : "stop", { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
  res.end("data: [DONE]\n\n");
}

/**
 * An OpenAI-compatible chat completions server on loopback. For each user turn
 * it follows the script (call `reply` with text, stay silent, or fail with an
 * HTTP status); after a tool result it ends the turn. Every request is recorded.
 */
export async function startFakeLlm(script: Script = () => ({ reply: "Hello from the fake model" })) {
  const requests: ChatRequest[] = [];
  /** The Authorization header of each chat request, in order (which key reached this server). */
  const authorizations: (string | undefined)[] = [];
  /** Speech-to-text requests (OpenAI's multipart /audio/transcriptions): the form's size and content type. */
  const transcriptions: { contentType: string; bytes: number }[] = [];
  let transcript = "see you at eight";
  let current = script;
  let calls = 0;
  const server = createServer(async (req, res) => {
    if (req.url?.endsWith("/audio/transcriptions")) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      transcriptions.push({ contentType: String(req.headers["content-type"]), bytes: Buffer.concat(chunks).length });
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ text: transcript, language: "english", duration: 1.4 }));
    }
    const body = (await readJson(req)) as ChatRequest;
    requests.push(body);
    authorizations.push(req.headers.authorization);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    const last = body.messages[body.messages.length - 1];
    const streamed = (content: string) => streamCompletion(res, { content }, { chunks: 1, chunkDelayMs: 0 });
    if (last?.role === "tool") return body.stream ? streamed("") : send(200, completion({ content: "" }, "stop"));
    const action = current(body);
    if (action.delayMs) await new Promise((resolve) => setTimeout(resolve, action.delayMs));
    if (action.until) await action.until;
    if ("status" in action) {
      res.writeHead(action.status, { "content-type": "application/json", ...action.headers });
      return res.end(
        JSON.stringify({
          error: action.error ?? { message: "fake model failure", type: action.status === 429 ? "rate_limit_error" : "server_error" },
        }),
      );
    }
    if ("streamError" in action) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = { id: "chatcmpl-err", object: "chat.completion.chunk", created: 0, model: "fake" };
      const delta = {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id: "call_err", type: "function", function: { name: "reply", arguments: '{"mess' } }],
      };
      res.write(`data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ error: action.streamError })}\n\n`);
      return res.end("data: [DONE]\n\n");
    }
    if ("silent" in action)
      return body.stream ? streamed("(no reply needed)") : send(200, completion({ content: "(no reply needed)" }, "stop"));
    // Without tools (summaries), answer in plain text.
    if (!body.tools?.length) return body.stream ? streamed(action.reply) : send(200, completion({ content: action.reply }, "stop"));
    calls += 1;
    if (body.stream)
      return streamCompletion(
        res,
        { toolCall: { id: `call_${calls}`, name: "reply", arguments: JSON.stringify({ message: action.reply }) } },
        { chunks: action.chunks ?? 4, chunkDelayMs: action.chunkDelayMs ?? 0 },
      );
    return send(
      200,
      completion(
        {
          content: null,
          tool_calls: [
            { id: `call_${calls}`, type: "function", function: { name: "reply", arguments: JSON.stringify({ message: action.reply }) } },
          ],
        },
        "tool_calls",
      ),
    );
  });
  // Node's 5 s keep-alive default races the client's reuse of an idle connection on a
  // loaded machine (ECONNRESET): a loopback artifact, not a platform's behaviour.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    transcriptions,
    setTranscript: (text: string) => {
      transcript = text;
    },
    setScript: (next: Script) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeLlm = Awaited<ReturnType<typeof startFakeLlm>>;
