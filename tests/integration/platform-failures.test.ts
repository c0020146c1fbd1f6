import { describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { useHarness } from "../helpers/harness";

describe("platform and model failures", () => {
  const h = useHarness();

  it("a Bot API 5xx is recorded and not retried (the message may have gone out)", async () => {
    h.telegram.failNext({ status: 502, body: { ok: false, error_code: 502, description: "Bad Gateway" } });
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(1);
    const outbound = await h.t.db.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound).toMatchObject({ status: "failed", lastDeliveryError: "Telegram 502: Bad Gateway" });
    expect((await h.t.db.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status).toBe("done");
  });

  it("a model 5xx is retried with backoff and then answered once", async () => {
    let calls = 0;
    h.llm.setScript(() => (++calls === 1 ? { status: 503 } : { reply: "after the outage" }));
    await h.t.post(update({ text: "hello" }));
    await h.t.settle();
    expect(h.telegram.sends().map((s) => s.body.text)).toEqual(["after the outage"]);
    expect((await h.t.db.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).attempts).toBe(2);
  });

  it("a malformed tool call (bad arguments) sends nothing and ends the turn cleanly", async () => {
    const server = h.llm;
    server.setScript(() => ({ reply: "x".repeat(6000) })); // over the tool's 5000-character limit
    await h.t.post(update({ text: "write me an essay" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(0);
    const turn = await h.t.db.turn.findFirstOrThrow();
    expect(turn.toolCalls).toEqual([]);
    expect((await h.t.db.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status).toBe("done");
  });
});
