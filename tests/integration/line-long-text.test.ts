import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLineChannel } from "@/lib/channels/line/adapter";
import { DeliveryError } from "@/lib/channels/types";
import { startTestApp } from "../helpers/app";
import { sqliteTestDb } from "../helpers/db";
import { startFakeLine, type FakeLine } from "../helpers/fake-line";
import { startFakeLlm } from "../helpers/fake-llm";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

/**
 * A text over LINE's 5,000 characters (UTF-16 code units) goes out as consecutive text
 * messages, five a call: the reply token carries the first five, pushes the rest, in
 * order; a part that went out is never sent again.
 */
describe("the LINE adapter sends a long text in parts", () => {
  let line: FakeLine;
  const channel = () => createLineChannel({ accessToken: "long-token", apiRoot: line.url, timeoutMs: 5_000 });
  const fresh = () => ({ replyToken: `rt-${Math.random()}`, quoteToken: "qt-1", receivedAt: Date.now() });
  beforeAll(async () => {
    line = await startFakeLine();
    line.addChannel("long-token", { userId: "Ubot", basicId: "@bot", displayName: "Bot" });
  });
  afterAll(() => line.close());
  beforeEach(() => {
    line.calls.length = 0;
  });
  const texts = (call: { body: Record<string, any> }) => call.body.messages.map((m: { text: string }) => m.text);

  it("a 12,000-character answer is three messages in one reply call, the first quoting, each at most 5,000", async () => {
    const text = `${"word ".repeat(1200)}\n${"more ".repeat(1200)}`;
    const sent = await channel().send({ chatId: "U1", text, platform: fresh() });
    expect(sent.platformMessageId).toMatch(/^\d+$/);
    const sends = line.sends();
    expect(sends.map((c) => c.path)).toEqual(["/v2/bot/message/reply"]);
    const parts: string[] = texts(sends[0]!);
    expect(parts.length).toBe(3);
    expect(parts.every((p) => p.length <= 5000)).toBe(true);
    expect(parts.join(" ").replace(/\s+/g, " ").trim()).toBe(text.replace(/\s+/g, " ").trim());
    expect(sends[0]!.body.messages[0].quoteToken).toBe("qt-1");
    expect(sends[0]!.body.messages.slice(1).some((m: { quoteToken?: string }) => m.quoteToken)).toBe(false);
  });

  it("over five parts: five by the reply token, the rest by push, in order; never inside an emoji's surrogate pair", async () => {
    // 7 parts of 5,000 code units: the 🍎 (two units) straddles every cut.
    const unit = `${"a".repeat(4999)}🍎${"b".repeat(4998)}`;
    const text = unit.repeat(3) + "z".repeat(2000);
    const sent = await channel().send({ chatId: "U1", text, platform: fresh() });
    expect(sent).toBeTruthy();
    const sends = line.sends();
    expect(sends.map((c) => c.path)).toEqual(["/v2/bot/message/reply", "/v2/bot/message/push"]);
    expect(sends[0]!.body.messages).toHaveLength(5);
    expect(sends[1]!.body).toMatchObject({ to: "U1" });
    const parts: string[] = [...texts(sends[0]!), ...texts(sends[1]!)];
    expect(parts.join("")).toBe(text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(5000);
      expect(/^[\uDC00-\uDFFF]/.test(part) || /[\uD800-\uDBFF]$/.test(part)).toBe(false);
    }
  });

  it("without a fresh reply token everything is pushed, five a call", async () => {
    const text = "x".repeat(5000 * 6 + 1);
    await channel().send({ chatId: "U1", text });
    const sends = line.sends();
    expect(sends.map((c) => [c.path, c.body.messages.length])).toEqual([
      ["/v2/bot/message/push", 5],
      ["/v2/bot/message/push", 2],
    ]);
  });

  it("a push failing after the reply went out: an unknown outcome, not retryable, and a second attempt is not made by the adapter", async () => {
    line.failNext("/v2/bot/message/push", 500);
    const text = "y".repeat(5000 * 6);
    const failure = await channel()
      .send({ chatId: "U1", text, platform: fresh() })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect(failure).toMatchObject({ outcome: "unknown", retryable: false });
    expect((failure as Error).message).toContain("after 5 of 6 parts were sent");
    expect(line.sends().map((c) => c.path)).toEqual(["/v2/bot/message/reply", "/v2/bot/message/push"]);
  });

  it("a refusal before anything went out stays a plain refusal (nothing sent)", async () => {
    line.failNext("/v2/bot/message/push", 400);
    const failure = await channel()
      .send({ chatId: "U1", text: "z".repeat(6000) })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ outcome: "not_sent", retryable: false });
  });
});

/**
 * What an agent's answer over 5,000 characters does on LINE today: every outbound text is
 * at most 5,000 (OUTBOUND_TEXT_LIMIT, the reply tool's schema, LINE's own limit for one
 * message), so the reply tool refuses it before any send: the model is told, and LINE gets
 * nothing. The split above is for a longer limit, should one come.
 */
describe("an agent's answer over 5,000 characters to LINE", () => {
  it("is refused by the reply tool before anything reaches LINE", async () => {
    const line = await startFakeLine();
    line.addChannel("line-token", { userId: "Ubot", basicId: "@bot", displayName: "Bot" });
    const llm = await startFakeLlm(() => ({ reply: "z".repeat(6_000) }));
    const testDb = await sqliteTestDb();
    const t = await startTestApp({
      db: testDb,
      llm,
      env: { LINE_CHANNEL_SECRET: "line-secret", LINE_CHANNEL_ACCESS_TOKEN: "line-token", LINE_API_ROOT: line.url },
    });
    try {
      const body = JSON.stringify({
        destination: "Ubot",
        events: [
          {
            type: "message",
            mode: "active",
            timestamp: Date.now(),
            webhookEventId: "evt-long-1",
            deliveryContext: { isRedelivery: false },
            replyToken: "rt-long-1",
            source: { type: "user", userId: "Ulong" },
            message: { type: "text", id: "m-long-1", text: "tell me everything", quoteToken: "qt" },
          },
        ],
      });
      const signature = createHmac("sha256", "line-secret").update(body).digest("base64");
      const response = await receiveWebhook(
        t.app.inbound,
        "line",
        new Request("http://localhost/api/webhooks/line", {
          method: "POST",
          headers: { "content-type": "application/json", "x-line-signature": signature },
          body,
        }),
      );
      expect(response.status).toBe(200);
      await t.settle();
      expect(line.sends()).toEqual([]);
      // The model read the refusal of its call (the tool's input schema: at most 5,000).
      const toolResults = llm.requests.flatMap((r) => r.messages.filter((m) => m.role === "tool"));
      expect(JSON.stringify(toolResults)).toMatch(/5000|too_big|Invalid input/i);
      expect(await t.db.prisma.message.count({ where: { senderKind: "agent" } })).toBe(0);
    } finally {
      await t.stop();
      await testDb.close();
      await llm.close();
      await line.close();
    }
  });
});
