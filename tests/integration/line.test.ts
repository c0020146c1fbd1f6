import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import sharp from "sharp";
import { blobStoreFor } from "@/lib/media/blob-store";
import { sendOperatorReply } from "@/lib/pipeline/operator-reply";
import { updateSettings } from "@/lib/settings/store";
import { startTestApp, type TestApp } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { assertLlmRequestsIntact, assertStoredTurnsIntact } from "../helpers/prompt-integrity";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

const SECRET = "line-channel-secret";
type Call = { path: string; body: Record<string, any> };

/**
 * A LINE Messaging API server on loopback: reply (tokens usable once, optionally
 * refused) and push in `calls`; the loading animation (best effort, beside the
 * messages) in `loading`.
 */
async function startFakeLine() {
  const calls: Call[] = [];
  const loading: Call[] = [];
  const used = new Set<string>();
  let refuseTokens = false;
  let nextId = 900_000;
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    res.setHeader("content-type", "application/json");
    if (req.url === "/v2/bot/chat/loading/start") {
      loading.push({ path: req.url, body });
      res.statusCode = 202;
      return res.end("{}");
    }
    calls.push({ path: req.url!, body });
    if (req.url === "/v2/bot/message/reply") {
      if (refuseTokens || used.has(body.replyToken)) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ message: "Invalid reply token" }));
      }
      used.add(body.replyToken);
    }
    res.end(JSON.stringify({ sentMessages: [{ id: String(nextId++), quoteToken: "q" }] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    loading,
    refuseReplyTokens: () => (refuseTokens = true),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let eventSeq = 0;
function messageEvent(o: {
  text: string;
  id: string;
  source?: Record<string, string>;
  quotedMessageId?: string;
  mentionSelf?: boolean;
  replyToken?: string;
}) {
  return {
    type: "message",
    mode: "active",
    timestamp: Date.now(),
    webhookEventId: `evt-${++eventSeq}`,
    deliveryContext: { isRedelivery: false },
    replyToken: o.replyToken ?? `rt-${eventSeq}`,
    source: o.source ?? { type: "user", userId: "Uabcdef1234" },
    message: {
      type: "text",
      id: o.id,
      text: o.text,
      quoteToken: `qt-${o.id}`,
      ...(o.quotedMessageId ? { quotedMessageId: o.quotedMessageId } : {}),
      ...(o.mentionSelf ? { mention: { mentionees: [{ index: 0, length: 4, type: "user", userId: "Ubot", isSelf: true }] } } : {}),
    },
  };
}

describe("the LINE adapter", () => {
  let line: Awaited<ReturnType<typeof startFakeLine>>;
  let llm: FakeLlm;
  let testDb: TestDb;
  let t: TestApp;
  beforeAll(async () => {
    line = await startFakeLine();
    llm = await startFakeLlm((req) => ({ reply: `re: ${String(req.messages.at(-1)?.content).split("\n").pop()}` }));
  });
  afterAll(async () => {
    await line.close();
    await llm.close();
  });
  beforeEach(async () => {
    line.calls.length = 0;
    line.loading.length = 0;
    llm.requests.length = 0;
    testDb = await sqliteTestDb();
    t = await startTestApp({
      db: testDb,
      llm,
      env: { LINE_CHANNEL_SECRET: SECRET, LINE_CHANNEL_ACCESS_TOKEN: "line-token", LINE_API_ROOT: line.url },
    });
  });
  afterEach(async () => {
    // Every prompt this test produced parses back intact.
    await assertLlmRequestsIntact(llm.requests, t.db);
    await assertStoredTurnsIntact(t.db);
    await t.stop();
    await testDb.close();
  });

  async function post(events: unknown[], signature?: string) {
    const body = JSON.stringify({ destination: "Ubot", events });
    const sig = signature ?? createHmac("sha256", SECRET).update(body).digest("base64");
    const response = await receiveWebhook(
      t.app.inbound,
      "line",
      new Request("http://localhost/api/webhooks/line", {
        method: "POST",
        headers: { "content-type": "application/json", "x-line-signature": sig },
        body,
      }),
    );
    return response.status;
  }

  it("refuses a wrong or missing signature with 401 and stores nothing", async () => {
    expect(await post([messageEvent({ text: "hi", id: "1" })], "bm90IHRoZSBzaWduYXR1cmU=")).toBe(401);
    const body = JSON.stringify({ events: [messageEvent({ text: "hi", id: "1" })] });
    const unsigned = await receiveWebhook(
      t.app.inbound,
      "line",
      new Request("http://localhost/api/webhooks/line", { method: "POST", body }),
    );
    expect(unsigned.status).toBe(401);
    expect(await t.db.prisma.message.count()).toBe(0);
  });

  it("stores a text message through the same pipeline and answers with the reply token, quoting it", async () => {
    expect(await post([messageEvent({ text: "hello LINE", id: "m1", replyToken: "token-1" })])).toBe(200);
    await t.settle();
    const conversation = await t.db.prisma.conversation.findFirstOrThrow();
    expect(conversation).toMatchObject({ channel: "line", platformChatId: "Uabcdef1234", type: "private" });
    expect(line.calls.map((c) => c.path)).toEqual(["/v2/bot/message/reply"]);
    expect(line.calls[0].body).toEqual({
      replyToken: "token-1",
      messages: [{ type: "text", text: "re: hello LINE", quoteToken: "qt-m1" }],
    });
    expect(await t.db.prisma.message.count({ where: { direction: "outbound", platformMessageId: { not: null } } })).toBe(1);
  });

  it("an unsend that overtakes its message (a redelivery after our failure) keeps the message taken back: not stored as text, not answered", async () => {
    const unsend = {
      type: "unsend",
      mode: "active",
      timestamp: Date.now(),
      webhookEventId: `evt-${++eventSeq}`,
      source: { type: "user", userId: "Uabcdef1234" },
      unsend: { messageId: "m-late" },
    };
    expect(await post([unsend])).toBe(200);
    expect(
      await post([{ ...messageEvent({ text: "my card number is 4111", id: "m-late" }), deliveryContext: { isRedelivery: true } }]),
    ).toBe(200);
    await t.settle();
    const messages = await t.db.prisma.message.findMany({ where: { platformMessageId: "m-late" } });
    expect(messages).toHaveLength(1);
    expect(messages[0].deletedAt).not.toBeNull();
    expect(messages[0].text).not.toContain("4111");
    expect(line.calls).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it("a redelivered event is stored and answered once", async () => {
    const event = messageEvent({ text: "once", id: "m2" });
    await post([event]);
    await post([event]);
    await t.settle();
    expect(await t.db.prisma.message.count({ where: { direction: "inbound" } })).toBe(1);
    expect(line.calls).toHaveLength(1);
  });

  it("a quoted reply gets the reply annotation from the stored message", async () => {
    await post([messageEvent({ text: "The meeting is at noon", id: "m10" })]);
    await t.settle();
    llm.requests.length = 0;
    await post([messageEvent({ text: "which day?", id: "m11", quotedMessageId: "m10" })]);
    await t.settle();
    const last = String(llm.requests[0].messages.at(-1)!.content);
    expect(last).toContain('[↩ reply to LINE user 1234: "The meeting is at noon"]');
  });

  it("in a group answers only when the bot is mentioned", async () => {
    const group = { type: "group", groupId: "Cgroup1", userId: "Umember99" };
    await post([messageEvent({ text: "chatting", id: "g1", source: group })]);
    await t.settle();
    expect(line.calls).toHaveLength(0);
    await post([messageEvent({ text: "@bot help", id: "g2", source: group, mentionSelf: true })]);
    await t.settle();
    expect(line.calls).toHaveLength(1);
    expect((await t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: "Cgroup1" } })).type).toBe("group");
    // LINE has the loading animation for one-to-one chats only: none in a group.
    expect(line.loading).toHaveLength(0);
  });

  it("a one-to-one chat sees the loading animation while the turn runs, started before the answer", async () => {
    await post([messageEvent({ text: "are you there?", id: "m30" })]);
    await t.settle();
    expect(line.loading.length).toBeGreaterThanOrEqual(1);
    expect(line.loading[0].body).toEqual({ chatId: "Uabcdef1234", loadingSeconds: 20 });
    expect(line.calls.map((c) => c.path)).toEqual(["/v2/bot/message/reply"]);
  });

  it("an image set (LINE's album) is one turn with all its pictures, answered once", async () => {
    await updateSettings(t.db, { modelSeesImages: true }, "test");
    const set = { id: "E005D41A7288F41B65593ED38FF6E9834B046AB36A37921A56BC236F13A91855", total: 3 };
    const events = [1, 2, 3].map((index) => ({
      ...messageEvent({ text: "", id: `img${index}` }),
      message: {
        type: "image",
        id: `img${index}`,
        quoteToken: `qt-img${index}`,
        contentProvider: { type: "line" },
        imageSet: { ...set, index },
      },
    }));
    expect(await post(events)).toBe(200);
    // What the fetch job does with each image's content (it is not under test here).
    const store = blobStoreFor(t.db);
    for (const [i, attachment] of (await t.db.prisma.attachment.findMany({ orderBy: { id: "asc" } })).entries()) {
      expect(attachment).toMatchObject({ kind: "photo", source: "line", sourceRef: `img${i + 1}`, status: "pending" });
      const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40 * i, g: 90, b: 200 } } })
        .png()
        .toBuffer();
      const { sha256 } = await store.put(bytes, "image/png");
      await t.db.prisma.attachment.update({
        where: { id: attachment.id },
        data: { status: "stored", blobSha256: sha256, mimeType: "image/png" },
      });
    }
    await t.settle();
    const turns = llm.requests.filter((r) => r.tools?.length && r.messages.at(-1)?.role === "user");
    expect(turns).toHaveLength(1);
    const images = turns[0].messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((p: { type: string }) => p.type === "image_url") : [],
    );
    expect(images).toHaveLength(3);
    expect(line.calls.map((c) => c.path)).toEqual(["/v2/bot/message/reply"]);
  });

  it("falls back to a push message when the reply token is refused, and pushes operator replies", async () => {
    line.refuseReplyTokens();
    await post([messageEvent({ text: "late", id: "m20" })]);
    await t.settle();
    expect(line.calls.map((c) => c.path)).toEqual(["/v2/bot/message/reply", "/v2/bot/message/push"]);
    expect(line.calls[1].body).toEqual({ to: "Uabcdef1234", messages: [{ type: "text", text: "re: late" }] });
    const inbound = await t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: "m20" } });
    const result = await sendOperatorReply(t.app, { messageId: inbound.id, text: "an operator here", operator: "admin" });
    expect(result).toMatchObject({ ok: true, recorded: true });
    expect(line.calls.at(-1)).toEqual({
      path: "/v2/bot/message/push",
      body: { to: "Uabcdef1234", messages: [{ type: "text", text: "an operator here" }] },
    });
  });
});

describe("the LINE adapter when it is not configured", () => {
  it("answers 503 and stores nothing", async () => {
    const testDb = await sqliteTestDb();
    const t = await startTestApp({ db: testDb, model: null });
    try {
      const response = await receiveWebhook(
        t.app.inbound,
        "line",
        new Request("http://localhost/api/webhooks/line", { method: "POST", body: "{}" }),
      );
      expect(response.status).toBe(503);
      expect(t.app.channels.line).toBeUndefined();
    } finally {
      await t.stop();
      await testDb.close();
    }
  });
});
