import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request's JSON body ({} when empty). */
export async function body(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

/** An HTTP server on a free loopback port (the benchmarks' fake model and Bot API). */
export function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  return new Promise<{ url: string; close: () => void }>((resolve) => {
    const server = createServer(handler);
    // Keep idle connections open longer than any client pool would: Node's 5 s default
    // races the client's reuse of a connection under load ("other side closed"), a
    // loopback artifact that would show as failed model calls and sends.
    server.keepAliveTimeout = 120_000;
    server.headersTimeout = 125_000;
    server.listen(0, "127.0.0.1", 4096, () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    );
  });
}

/**
 * A Bot API server on loopback: answers getMe for the bot, passes each
 * sendMessage's JSON body to `onSend` and answers with the message it returns;
 * chat actions and drafts (the bot showing it works) are answered `true`.
 */
export function fakeBotApi(onSend: (payload: Record<string, any>) => Record<string, unknown>) {
  return listen(async (req, res) => {
    const method = req.url!.split("/").pop();
    const payload = await body(req);
    res.setHeader("content-type", "application/json");
    if (method === "getMe") {
      return res.end(
        JSON.stringify({
          ok: true,
          result: {
            id: 1,
            is_bot: true,
            first_name: "B",
            username: "bench_bot",
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        }),
      );
    }
    res.end(JSON.stringify({ ok: true, result: method === "sendMessage" ? onSend(payload) : true }));
  });
}

/**
 * A chat completion as an OpenAI-compatible server answers it: one JSON body, or,
 * for a streamed request (`"stream": true`, as a turn that shows drafts makes), the
 * same message as server-sent chunks: a reply's arguments in a few pieces.
 */
export function answerCompletion(
  res: ServerResponse,
  request: { stream?: boolean },
  message: { content: string } | { reply: string },
  model = "fake",
) {
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const base = { id: "x", created: 0, model };
  const toolCall =
    "reply" in message
      ? { id: "c", type: "function", function: { name: "reply", arguments: JSON.stringify({ message: message.reply }) } }
      : null;
  const finish = toolCall ? "tool_calls" : "stop";
  if (!request.stream) {
    const body = toolCall
      ? { role: "assistant", content: null, tool_calls: [toolCall] }
      : { role: "assistant", content: (message as { content: string }).content };
    res.setHeader("content-type", "application/json");
    return res.end(
      JSON.stringify({ ...base, object: "chat.completion", usage, choices: [{ index: 0, message: body, finish_reason: finish }] }),
    );
  }
  res.setHeader("content-type", "text/event-stream");
  const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
    `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  let out = "";
  if (toolCall) {
    const args = toolCall.function.arguments;
    const third = Math.ceil(args.length / 3);
    out += chunk(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: "reply", arguments: "" } }],
      },
      null,
    );
    for (let i = 0; i < args.length; i += third)
      out += chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + third) } }] }, null);
  } else {
    out += chunk({ role: "assistant", content: (message as { content: string }).content }, null);
  }
  res.end(`${out}${chunk({}, finish, { usage })}data: [DONE]\n\n`);
}

/** A text message in a private chat, as the Bot API delivers it to a webhook (the update and the message share `id`). */
export function privateTextUpdate(id: number, chat: number, firstName: string, text: string): string {
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: "private", first_name: firstName },
      from: { id: chat, is_bot: false, first_name: firstName },
      text,
    },
  });
}
