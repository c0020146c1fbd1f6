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
 * A Bot API server on loopback: answers getMe for the bot, passes every other
 * method's JSON body to `onSend` and answers with the message it returns.
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
    res.end(JSON.stringify({ ok: true, result: onSend(payload) }));
  });
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
