import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type LineCall = { method: string; path: string; body: Record<string, any>; token: string };
export type FakeLineChannel = { userId: string; basicId: string; displayName: string; pictureUrl?: string };

/**
 * A LINE Messaging API server on loopback for several channels, told apart by
 * their access token (Authorization: Bearer): bot info, reply, push, the loading
 * animation and the webhook endpoint. An unknown token gets LINE's 401.
 */
export async function startFakeLine() {
  const calls: LineCall[] = [];
  const channels = new Map<string, FakeLineChannel>();
  let nextId = 700_000;
  /** The next calls to a path answer this status (LINE's own body for a 400), once each. */
  const failures: { path: string; status: number }[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? JSON.parse(text) : {};
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    calls.push({ method: req.method!, path: req.url!, body, token });
    res.setHeader("content-type", "application/json");
    const channel = channels.get(token);
    if (!channel) {
      res.statusCode = 401;
      return res.end(
        JSON.stringify({ message: "Authentication failed. Confirm that the access token in the authorization header is valid." }),
      );
    }
    if (req.url === "/v2/bot/info") return res.end(JSON.stringify({ ...channel, chatMode: "bot", markAsReadMode: "auto" }));
    if (req.url === "/v2/bot/chat/loading/start") {
      res.statusCode = 202;
      return res.end("{}");
    }
    if (req.url === "/v2/bot/message/reply" || req.url === "/v2/bot/message/push") {
      const failing = failures.findIndex((f) => f.path === req.url);
      if (failing >= 0) {
        res.statusCode = failures.splice(failing, 1)[0]!.status;
        return res.end(JSON.stringify({ message: res.statusCode === 400 ? "Invalid reply token" : "An error occurred in the backend" }));
      }
      // LINE's validation: 1–5 messages a call, a text of at most 5,000 UTF-16 code units.
      const messages: { type: string; text?: string }[] = Array.isArray(body.messages) ? body.messages : [];
      const details = [
        ...(messages.length < 1 || messages.length > 5 ? [{ message: "Size must be between 1 and 5", property: "messages" }] : []),
        ...messages.flatMap((m, i) =>
          m.type === "text" && (m.text ?? "").length > 5000
            ? [{ message: "Length must be between 0 and 5000", property: `messages[${i}].text` }]
            : [],
        ),
      ];
      if (details.length) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ message: `The request body has ${details.length} error(s)`, details }));
      }
      return res.end(JSON.stringify({ sentMessages: messages.map(() => ({ id: String(nextId++), quoteToken: "q" })) }));
    }
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    addChannel: (token: string, channel: FakeLineChannel) => channels.set(token, channel),
    /** The next call to `path` ("/v2/bot/message/push") fails with `status`. */
    failNext: (path: string, status: number) => failures.push({ path, status }),
    sends: () => calls.filter((c) => c.path === "/v2/bot/message/reply" || c.path === "/v2/bot/message/push"),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeLine = Awaited<ReturnType<typeof startFakeLine>>;
