import { describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { useHarness } from "../helpers/harness";
import { retryEnvelope } from "@/lib/pipeline/retry";
import { startBackgroundTask } from "@/lib/pipeline/forks";

describe("platform and model failures", () => {
  const h = useHarness();

  it("a Bot API 5xx is not retried (the message may have gone out) and stays in the history as possibly delivered", async () => {
    h.telegram.failNext({ status: 502, body: { ok: false, error_code: 502, description: "Bad Gateway" } });
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(1);
    const outbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound.status).toBe("failed");
    expect(outbound.lastDeliveryError).toMatch(/^Telegram 502: Bad Gateway \(outcome unknown, possibly delivered/);
    // In the history the model and the operator see, attached to its failed envelope.
    const kept = await h.t.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" } });
    expect(kept).toMatchObject({ text: "Hello from the fake model", platformMessageId: null });
    expect(outbound.messageId).toBe(kept.id);
    const inbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    expect(inbound.status).toBe("done");
    expect((await h.t.db.prisma.turn.findFirstOrThrow()).error).toMatch(/reply not delivered: Telegram 502/);
    // The next turn's prompt carries it.
    h.llm.requests.length = 0;
    await h.t.post(update({ messageId: 2, text: "did you answer?" }));
    await h.t.settle();
    expect(JSON.stringify(h.llm.requests[0].messages)).toContain("Hello from the fake model");
    // Labelled for the model: it may not have reached the user.
    const assistant = (h.llm.requests[0].messages as { role: string; content: unknown }[]).filter((m) => m.role === "assistant");
    expect(JSON.stringify(assistant)).toContain("(possibly not delivered: the send's outcome is unknown) Hello from the fake model");
  });

  it("a refused send fails the turn where the operator looks: the envelope and the turn carry the reason", async () => {
    h.telegram.failNext({
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: not enough rights to send text messages to the chat" },
    });
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    const inbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    const reason = "reply not delivered: Telegram 400: Bad Request: not enough rights to send text messages to the chat";
    expect(inbound).toMatchObject({ status: "failed", lastDeliveryError: reason });
    expect((await h.t.db.prisma.turn.findFirstOrThrow()).error).toBe(reason);
    // Nothing reached the user, so nothing joins the history.
    expect(await h.t.db.prisma.message.count({ where: { direction: "outbound" } })).toBe(0);

    // The operator's Retry runs the turn again; this time the send goes out, once.
    await expect(retryEnvelope(h.t.db, inbound.id)).resolves.toMatchObject({ retried: "turn" });
    h.t.app.worker.kick();
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(2);
    expect((await h.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: inbound.id } })).status).toBe("done");
    expect(await h.t.db.prisma.message.count({ where: { direction: "outbound" } })).toBe(1);
    expect((await h.t.db.prisma.turn.findFirstOrThrow()).error).toBeNull();
    // Only a failed envelope can be retried.
    await expect(retryEnvelope(h.t.db, inbound.id)).rejects.toMatchObject({ code: "conflict" });
  });

  it("a 403 'blocked by the user' fails the turn and marks the chat: a Retry is refused with the reason, not sent into a 403", async () => {
    h.telegram.failNext({ status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } });
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    const inbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    expect(inbound).toMatchObject({
      status: "failed",
      lastDeliveryError: "reply not delivered: Telegram 403: Forbidden: bot was blocked by the user",
    });
    expect((await h.t.db.prisma.conversation.findFirstOrThrow()).membership).toBe("blocked");
    await retryEnvelope(h.t.db, inbound.id);
    h.t.app.worker.kick();
    await h.t.settle();
    // Nothing more went to Telegram; the operator reads why.
    expect(h.telegram.sends()).toHaveLength(1);
    const again = await h.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: inbound.id } });
    expect(again.status).toBe("failed");
    expect(again.lastDeliveryError).toMatch(/blocked the bot/);
  });

  it("Retry on a send kept as possibly delivered sends it again", async () => {
    h.telegram.failNext({ status: 500, body: { ok: false, error_code: 500, description: "Internal Server Error" } });
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    const outbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound.status).toBe("failed");
    await retryEnvelope(h.t.db, outbound.id);
    h.t.app.worker.kick();
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(2);
    const done = await h.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: outbound.id } });
    expect(done.status).toBe("done");
    // The kept message is now confirmed: one copy in the history (not a second one beside an unconfirmed one).
    const copies = await h.t.db.prisma.message.findMany({ where: { direction: "outbound" } });
    expect(copies).toHaveLength(1);
    expect(copies[0].platformMessageId).not.toBeNull();
    expect(done.messageId).toBe(copies[0].id);
  });

  it("a model 5xx is retried with backoff and then answered once", async () => {
    let calls = 0;
    h.llm.setScript(() => (++calls === 1 ? { status: 503 } : { reply: "after the outage" }));
    await h.t.post(update({ text: "hello" }));
    await h.t.settle();
    expect(h.telegram.sends().map((s) => s.body.text)).toEqual(["after the outage"]);
    expect((await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).attempts).toBe(2);
  });

  it("a spent quota (OpenAI's 429 insufficient_quota) is a failed call with attempts counted, not a pause that puts the turn back forever", async () => {
    let calls = 0;
    // OpenAI's body for an account out of credit, as its API sends it.
    const quota = {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    };
    h.llm.setScript(() => (++calls === 1 ? { status: 429, error: quota } : { reply: "after the top-up" }));
    await h.t.post(update({ text: "hello" }));
    await h.t.settle();
    expect(h.telegram.sends().map((s) => s.body.text)).toEqual(["after the top-up"]);
    expect((await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).attempts).toBe(2);
    expect(h.t.app.gate?.pausedUntil()).toBeNull();
  });

  it("a malformed tool call (bad arguments) sends nothing and is recorded as the turn's error", async () => {
    const server = h.llm;
    server.setScript(() => ({ reply: "x".repeat(6000) })); // over the tool's 5000-character limit
    await h.t.post(update({ text: "write me an essay" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(0);
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.error).toMatch(/^malformed tool call \(reply\): /);
    expect(turn.toolCalls).toEqual([expect.objectContaining({ outcome: { error: expect.stringMatching(/^malformed call/) } })]);
    const inbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    expect(inbound).toMatchObject({ status: "failed", lastDeliveryError: turn.error });
  });
});

describe("a provider that refuses every call for good", () => {
  // An hour in production; 400 ms here.
  const h = useHarness({ refusingForGoodMs: 400 });

  it("is waited for until the limit, then the turn fails with the provider's refusal, and an operator's Retry answers it once the provider is back", async () => {
    // A proxy's own quota: 429 on every call, with a short Retry-After and no OpenAI quota code.
    h.llm.setScript(() => ({
      status: 429,
      headers: { "retry-after-ms": "50" },
      error: { message: "quota exceeded for this key", code: "429" },
    }));
    await h.t.post(update({ text: "hello" }));
    const inbound = () => h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    const deadline = Date.now() + 10_000;
    while ((await inbound()).status !== "failed" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const failed = await inbound();
    expect(failed.status).toBe("failed");
    expect(failed.lastDeliveryError).toMatch(
      /^gave up after \d+ attempts: model call failed: openai-compatible has refused every call since .* \(HTTP 429: quota exceeded for this key\); after 0 s of refusals turns no longer wait for it/,
    );
    // Paced by the provider's pauses while it waited, not one call per claim.
    expect(h.llm.requests.length).toBeLessThan(20);
    expect(h.telegram.sends()).toHaveLength(0);

    h.llm.setScript(() => ({ reply: "back again" }));
    await new Promise((r) => setTimeout(r, 60)); // the last pause ends
    await expect(retryEnvelope(h.t.db, failed.id)).resolves.toMatchObject({ retried: "turn" });
    h.t.app.worker.kick();
    await h.t.settle();
    expect(h.telegram.sends().map((s) => s.body.text)).toEqual(["back again"]);
    expect((await inbound()).status).toBe("done");
  });
});

describe("background tasks report honestly", () => {
  const h = useHarness({ withModel: false });

  it("with no model: refused up front when an operator starts one, and a queued one ends failed (never 'done')", async () => {
    await h.t.post(update({ text: "hello" }));
    await h.t.settle();
    const conversation = await h.t.db.prisma.conversation.findFirstOrThrow();
    await expect(
      startBackgroundTask(h.t.db, { conversationId: conversation.id, task: "digest", from: "operator:admin", modelConfigured: false }),
    ).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/^failed: no model/),
    });
    expect(await h.t.db.prisma.fork.count()).toBe(0);
    // Queued by an agent's mail (no model check at that point): the fork fails with the reason.
    const { fork } = await startBackgroundTask(h.t.db, { conversationId: conversation.id, task: "digest", from: "agent:planner" });
    h.t.app.worker.kick();
    await h.t.settle();
    expect(await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } })).toMatchObject({
      status: "failed",
      summary: "failed: no model configured",
    });
  });
});
