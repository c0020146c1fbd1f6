import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A Gemini request body (generateContent and streamGenerateContent take the same). */
export type GeminiRequest = {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations?: { name: string }[] }[];
};

/** What one model call answers: a part list with usage, or an HTTP error in Google's error shape. */
export type GeminiAnswer =
  | { parts: Record<string, unknown>[]; usage: { prompt: number; output: number; cached?: number } }
  | { status: number; error: { code: number; message: string; status: string; details?: unknown[] } };

export type GeminiCall = {
  model: string;
  method: "generateContent" | "streamGenerateContent";
  sse: boolean;
  apiKey: string | undefined;
  body: GeminiRequest;
};

async function readJson(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** `usageMetadata` as the Generative Language API reports it (cached tokens are part of the prompt's count). */
const usageMetadata = ({ prompt, output, cached }: { prompt: number; output: number; cached?: number }) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: output,
  totalTokenCount: prompt + output,
  ...(cached ? { cachedContentTokenCount: cached } : {}),
  promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
});

/**
 * Google's Generative Language API on loopback (`{base}/models/{model}:generateContent`
 * and `:streamGenerateContent?alt=sse`), answering each call with the next scripted
 * answer, in the wire shapes of Google's API reference: a candidate whose content has
 * `text` or `functionCall` parts, `finishReason`, `usageMetadata`; a stream as
 * server-sent events of the same JSON, the last chunk with the finish reason and usage;
 * errors as `{ error: { code, message, status, details } }`. Every call is recorded.
 */
export async function startFakeGemini() {
  const calls: GeminiCall[] = [];
  const answers: GeminiAnswer[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const match = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { code: 404, message: "Not found", status: "NOT_FOUND" } }));
    }
    const body = (await readJson(req)) as GeminiRequest;
    const method = match[2] as GeminiCall["method"];
    const sse = url.searchParams.get("alt") === "sse";
    calls.push({ model: match[1]!, method, sse, apiKey: req.headers["x-goog-api-key"] as string | undefined, body });
    const answer = answers.shift() ?? { parts: [{ text: "" }], usage: { prompt: 1, output: 1 } };
    if ("status" in answer) {
      res.writeHead(answer.status, { "content-type": "application/json; charset=UTF-8" });
      return res.end(JSON.stringify({ error: answer.error }));
    }
    const modelVersion = match[1];
    const responseId = `resp-${calls.length}`;
    if (method === "generateContent") {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      return res.end(
        JSON.stringify({
          candidates: [{ content: { parts: answer.parts, role: "model" }, finishReason: "STOP", index: 0 }],
          usageMetadata: usageMetadata(answer.usage),
          modelVersion,
          responseId,
        }),
      );
    }
    // A stream: text in pieces, a function call whole (Gemini does not stream its arguments), then the finish with usage.
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
    for (const part of answer.parts) {
      const pieces = typeof part.text === "string" ? (part.text.match(/.{1,8}/gs) ?? [""]).map((text) => ({ text })) : [part];
      for (const piece of pieces)
        event({
          candidates: [{ content: { parts: [piece], role: "model" }, index: 0 }],
          usageMetadata: usageMetadata({ ...answer.usage, output: 0 }),
          modelVersion,
          responseId,
        });
    }
    event({
      candidates: [{ content: { parts: [{ text: "" }], role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(answer.usage),
      modelVersion,
      responseId,
    });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1beta`,
    calls,
    /** Queues the answers of the next calls, in order (after them: an empty text answer). */
    answer: (...next: GeminiAnswer[]) => answers.push(...next),
    reset: () => {
      calls.length = 0;
      answers.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeGemini = Awaited<ReturnType<typeof startFakeGemini>>;

/** A call of the `reply` tool as Gemini makes it: a `functionCall` part. */
export const replyCall = (args: Record<string, unknown>) => ({ functionCall: { name: "reply", args } });

/** Google's 429 when a quota is spent for now: RESOURCE_EXHAUSTED with a RetryInfo saying how long to wait. */
export const resourceExhausted = (retryDelay: string): GeminiAnswer => ({
  status: 429,
  error: {
    code: 429,
    message: "You exceeded your current quota, please check your plan and billing details.",
    status: "RESOURCE_EXHAUSTED",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [
          {
            quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
          },
        ],
      },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
    ],
  },
});
