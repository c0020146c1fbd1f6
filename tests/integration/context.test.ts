import { describe, expect, it } from "vitest";
import { updateSettings } from "@/lib/settings/store";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import type { FakeLlm } from "../helpers/fake-llm";
import { useHarness } from "../helpers/harness";

const T0 = Math.floor(Date.parse("2026-11-20T09:00:00Z") / 1000);
const userTurns = (llm: FakeLlm) =>
  llm.requests
    .at(-1)!
    .messages.filter((m) => m.role === "user")
    .map((m) => String(m.content));
const systemOf = (llm: FakeLlm) => String(llm.requests.at(-1)!.messages.find((m) => m.role === "system")?.content ?? "");

describe.each(databases)("the prompt the model receives, on $name", ({ open }) => {
  const h = useHarness({ open, script: () => ({ silent: true }) });

  /** Posts n messages one minute apart, ids 1..n, texts "m1".."mn". */
  async function history(n: number) {
    for (let i = 1; i <= n; i++) await h.t.post(update({ messageId: i, text: `m${i}`, date: T0 + i * 60 }));
    await h.t.settle();
    h.llm.requests.length = 0;
  }

  it("sends the last recencyWindow messages, and a changed setting applies to the next message", async () => {
    await history(14);
    await h.t.post(update({ messageId: 15, text: "m15", date: T0 + 15 * 60 }));
    await h.t.settle();
    let turns = userTurns(h.llm);
    expect(turns).toHaveLength(10);
    expect(turns[0]).toContain("\nm6");
    expect(turns[9]).toMatch(/^--- telegram · from Alice · 2026-11-20 09:15 UTC · 1m after the previous message\nm15$/);

    await updateSettings(h.t.db, { recencyWindow: 3 }, "test");
    await h.t.post(update({ messageId: 16, text: "m16", date: T0 + 16 * 60 }));
    await h.t.settle();
    turns = userTurns(h.llm);
    expect(turns.map((c) => c.split("\n").pop())).toEqual(["m14", "m15", "m16"]);
  });

  it("a window of one message sends only the message answered, and the gap note still sees the one before it", async () => {
    await history(3);
    await updateSettings(h.t.db, { recencyWindow: 1 }, "test");
    await h.t.post(update({ messageId: 4, text: "m4", date: T0 + 3 * 60 + 2 * 3600 }));
    await h.t.settle();
    expect(userTurns(h.llm).map((c) => c.split("\n").pop())).toEqual(["m4"]);
    expect(systemOf(h.llm)).toContain("the previous message in this conversation was 2 hours before this one");
    // The prompt inspector's copy is the same one message.
    const turn = await h.t.db.prisma.turn.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect(JSON.stringify(turn.prompt)).not.toContain("m3");
  });

  it("for a reply adds the target with its neighbours, marked, in time order, deduplicated", async () => {
    await history(30);
    await updateSettings(h.t.db, { recencyWindow: 4, replyContextWindow: 2 }, "test");
    await h.t.post(
      update({
        messageId: 31,
        text: "about that",
        date: T0 + 31 * 60,
        replyTo: { message_id: 10, text: "m10", from: { id: 4242, first_name: "Alice" } },
      }),
    );
    await h.t.settle();
    const turns = userTurns(h.llm);
    expect(turns.map((c) => c.split("\n").pop())).toEqual(["m8", "m9", "m10", "m11", "m12", "m28", "m29", "m30", "about that"]);
    expect(turns[2]).toContain("earlier message, shown because the user's reply points here");
    expect(turns[8]).toContain('[↩ reply to Alice: "m10"]');
    expect(turns[6]).not.toContain("earlier message");
  });

  it("follows the reply chain upward", async () => {
    await history(20);
    await updateSettings(h.t.db, { recencyWindow: 2, replyContextWindow: 0, replyChainDepth: 3 }, "test");
    await h.t.post(update({ messageId: 21, text: "r1", date: T0 + 21 * 60, replyTo: { message_id: 2, text: "m2" } }));
    await h.t.post(update({ messageId: 22, text: "r2", date: T0 + 22 * 60, replyTo: { message_id: 21, text: "r1" } }));
    await h.t.settle();
    h.llm.requests.length = 0;
    await h.t.post(update({ messageId: 23, text: "r3", date: T0 + 23 * 60, replyTo: { message_id: 22, text: "r2" } }));
    await h.t.settle();
    // Target r2, its parent r1, grandparent m2: three levels; recency adds r2 (already there) and r3.
    expect(userTurns(h.llm).map((c) => c.split("\n").pop())).toEqual(["m2", "r1", "r2", "r3"]);
  });

  it("a reply to a message that was never stored uses the platform's copy and recency only", async () => {
    await history(3);
    await h.t.post(
      update({
        messageId: 4,
        text: "what?",
        date: T0 + 4 * 60,
        replyTo: { message_id: 999, text: "a message from before the bot joined", from: { id: 9, first_name: "Zoe" } },
      }),
    );
    await h.t.settle();
    const turns = userTurns(h.llm);
    expect(turns.map((c) => c.split("\n").pop())).toEqual(["m1", "m2", "m3", "what?"]);
    expect(turns[3]).toContain('[↩ reply to Zoe: "a message from before the bot joined"]');
  });

  it("adds a gap note above the threshold, none at or below it", async () => {
    await history(2);
    await h.t.post(update({ messageId: 3, text: "later", date: T0 + 2 * 60 + 3 * 3600 }));
    await h.t.settle();
    expect(systemOf(h.llm)).toContain("the previous message in this conversation was 3 hours before this one");
    h.llm.requests.length = 0;
    await h.t.post(update({ messageId: 4, text: "soon", date: T0 + 2 * 60 + 3 * 3600 + 15 * 60 }));
    await h.t.settle();
    expect(systemOf(h.llm)).not.toContain("previous message in this conversation was");
  });

  it("stores the exact prompt for the prompt inspector, without platform ids", async () => {
    await h.t.post(update({ messageId: 123456, text: "inspect me", date: T0 }));
    await h.t.settle();
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.system).toBe(systemOf(h.llm));
    expect(JSON.stringify(turn.prompt)).toContain("inspect me");
    expect(JSON.stringify(turn.prompt)).not.toContain("123456");
  });
});
