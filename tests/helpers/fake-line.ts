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
    if (req.url === "/v2/bot/message/reply" || req.url === "/v2/bot/message/push")
      return res.end(JSON.stringify({ sentMessages: [{ id: String(nextId++), quoteToken: "q" }] }));
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    addChannel: (token: string, channel: FakeLineChannel) => channels.set(token, channel),
    sends: () => calls.filter((c) => c.path === "/v2/bot/message/reply" || c.path === "/v2/bot/message/push"),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeLine = Awaited<ReturnType<typeof startFakeLine>>;
