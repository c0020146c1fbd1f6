import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { BOT } from "../fixtures/telegram";

export type BotApiCall = { method: string; body: Record<string, any>; token: string };
/** Another bot this server answers for (by its token): getMe returns this identity. */
export type FakeBotIdentity = { id: number; username: string; first_name: string };
/** A failure for the next call of `method` (default: the sends, sendMessage; chat actions and drafts are never its target by accident). */
type Failure = { status: number; body: Record<string, unknown>; delayMs?: number; method?: string };

async function readJson(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

/**
 * A Bot API server on loopback: answers getMe and sendMessage like Telegram,
 * records every call, and can be told to fail the next calls (429, 403, 5xx).
 */
export async function startFakeTelegram() {
  const calls: BotApiCall[] = [];
  const failures: Failure[] = [];
  const holds: number[] = [];
  let nextMessageId = 50_000;
  const identities = new Map<string, FakeBotIdentity>();
  const revoked = new Set<string>();
  const server = createServer(async (req, res) => {
    const parts = req.url!.split("/");
    const method = parts.pop()!;
    const token = (parts.pop() ?? "").replace(/^bot/, "");
    const body = await readJson(req);
    calls.push({ method, body, token });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    // What Telegram answers to a revoked or mistyped token, for every method.
    if (revoked.has(token)) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
    const other = identities.get(token);
    if (method === "getMe" && other) {
      return send(200, {
        ok: true,
        result: { ...other, is_bot: true, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false },
      });
    }
    if (method === "getMe") {
      return send(200, {
        ok: true,
        result: {
          id: BOT.id,
          is_bot: true,
          first_name: "Bot",
          username: BOT.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        },
      });
    }
    const at = failures.findIndex((f) => (f.method ?? "sendMessage") === method);
    const failure = at >= 0 ? failures.splice(at, 1)[0] : undefined;
    if (failure) {
      if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
      return send(failure.status, failure.body);
    }
    if (method === "sendMessage") {
      const hold = holds.shift();
      if (hold) await new Promise((r) => setTimeout(r, hold));
      return send(200, {
        ok: true,
        result: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(body.chat_id), type: "private" },
          text: body.text,
        },
      });
    }
    // A WebhookInfo as the Bot API returns it (url and pending_update_count are always present).
    if (method === "getWebhookInfo")
      return send(200, { ok: true, result: { url: "", has_custom_certificate: false, pending_update_count: 0 } });
    return send(200, { ok: true, result: true });
  });
  // Node's 5 s keep-alive default races the client's reuse of an idle connection on a
  // loaded machine (ECONNRESET): a loopback artifact, not a platform's behaviour.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    sends: () => calls.filter((c) => c.method === "sendMessage"),
    /** Answers for another bot: getMe with `token` returns `identity`. */
    addBot: (token: string, identity: FakeBotIdentity) => {
      identities.set(token, identity);
    },
    /** Every later call with `token` is 401 Unauthorized (the token was revoked with @BotFather). */
    revoke: (token: string) => {
      revoked.add(token);
    },
    /** Calls of one method, e.g. "sendChatAction" or "sendMessageDraft". */
    callsOf: (method: string) => calls.filter((c) => c.method === method),
    /** Records the next sendMessage at once but answers only after `ms` (a slow platform). */
    holdNext: (ms: number) => {
      holds.push(ms);
    },
    failNext: (failure: Failure, times = 1) => {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;
