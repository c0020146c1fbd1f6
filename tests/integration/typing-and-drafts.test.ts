import { describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { describeStatus } from "@/lib/server/status";
import { updateSettings } from "@/lib/settings/store";
import { group, update } from "../fixtures/telegram";
import { useHarness } from "../helpers/harness";

/** Calls to the Bot API fake in the order it received them, by method. */
const order = (calls: { method: string }[]) => calls.map((c) => c.method).filter((m) => m !== "getMe");

describe("the user sees the bot working (typing, drafts)", () => {
  // A model that takes 6 s, as a real one often does: inside the turn's time limit.
  const h = useHarness({ env: { LLM_TIMEOUT_SECONDS: "20" } });

  it("a 6 s model call shows 'typing…' at least twice before the answer, and never after it", async () => {
    await updateSettings(h.t.db, { streamDrafts: false }, "test");
    h.llm.setScript(() => ({ reply: "thought about it", delayMs: 6_000 }));
    await h.t.post(update({ text: "a hard question" }));
    await h.t.settle();
    const methods = order(h.telegram.calls);
    const answerAt = methods.indexOf("sendMessage");
    expect(answerAt).toBeGreaterThan(0);
    expect(methods.slice(0, answerAt).filter((m) => m === "sendChatAction").length).toBeGreaterThanOrEqual(2);
    // Nothing after the answer, even once a renewal would have been due.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(order(h.telegram.calls).slice(answerAt + 1)).toEqual([]);
    expect(h.telegram.callsOf("sendChatAction")[0].body).toEqual({ chat_id: "4242", action: "typing" });
  }, 30_000);

  it("a silent turn stops the indicator when it ends", async () => {
    h.llm.setScript(() => ({ silent: true, delayMs: 5_000 }));
    await h.t.post(update({ text: "ok thanks" }));
    await h.t.settle();
    const shown = h.telegram.callsOf("sendChatAction").length;
    expect(shown).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(h.telegram.callsOf("sendChatAction")).toHaveLength(shown);
    expect(h.telegram.sends()).toHaveLength(0);
  }, 30_000);

  it("is off with the setting, and in groups the bot was not asked to answer", async () => {
    await h.t.post(update({ chat: group, text: "people talking" }));
    await h.t.settle();
    expect(h.telegram.callsOf("sendChatAction")).toHaveLength(0);
    await updateSettings(h.t.db, { typingIndicator: false }, "test");
    await h.t.post(update({ text: "hello" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(1);
    expect(h.telegram.callsOf("sendChatAction")).toHaveLength(0);
  });

  it("a 429 on the chat action is obeyed by dropping renewals, never by holding the answer", async () => {
    await updateSettings(h.t.db, { streamDrafts: false }, "test");
    h.telegram.failNext({
      method: "sendChatAction",
      status: 429,
      body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 30", parameters: { retry_after: 30 } },
    });
    h.llm.setScript(() => ({ reply: "still here", delayMs: 6_000 }));
    await h.t.post(update({ text: "hello?" }));
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["still here"]);
    // One refused attempt, then silence for retry_after: no retry of it, no renewal within the 6 s turn.
    expect(h.telegram.callsOf("sendChatAction")).toHaveLength(1);
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.error).toBeNull();
  }, 30_000);

  it("a private chat sees the answer grow as drafts, then gets it once as a message", async () => {
    const answer = "Your parcel left the warehouse this morning and should arrive on Thursday.";
    h.llm.setScript(() => ({ reply: answer, chunks: 6, chunkDelayMs: 400 }));
    await h.t.post(update({ text: "where is my parcel?" }));
    await h.t.settle();
    const drafts = h.telegram.callsOf("sendMessageDraft").map((c) => c.body);
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    const texts = drafts.map((d) => d.text as string);
    for (const [i, text] of texts.entries()) {
      expect(answer.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan(texts[i - 1].length);
    }
    expect(new Set(drafts.map((d) => d.draft_id)).size).toBe(1);
    expect(drafts[0].chat_id).toBe(4242);
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual([answer]);
    const methods = order(h.telegram.calls);
    expect(methods.lastIndexOf("sendMessageDraft")).toBeLessThan(methods.indexOf("sendMessage"));
    // The turn record says the answer was previewed, and how often.
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.toolCalls).toEqual([{ message: answer, outcome: { status: "sent" }, drafts: drafts.length }]);
  }, 30_000);

  it("a busy instance sheds drafts: the answer goes out once, from a call that is not streamed, and the metric counts it", async () => {
    const answer = "Your parcel left the warehouse this morning and should arrive on Thursday.";
    h.llm.setScript(() => ({ reply: answer, chunks: 6, chunkDelayMs: 400 }));
    const shedCount = async () => ((await metrics()!.draftsShed.get()).values[0]?.value ?? 0) as number;
    const before = await shedCount();
    const wired = h.t.app.turnDeps.draftsShed;
    expect(wired?.()).toBe(false); // one test's turns never make an instance busy
    h.t.app.turnDeps.draftsShed = () => true;
    try {
      await h.t.post(update({ text: "where is my parcel?" }));
      await h.t.settle();
    } finally {
      h.t.app.turnDeps.draftsShed = wired;
    }
    expect(h.telegram.callsOf("sendMessageDraft")).toHaveLength(0);
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual([answer]);
    expect(h.llm.requests.map((r) => r.stream ?? false)).toEqual([false]);
    expect(await shedCount()).toBe(before + 1);
    // A chat that never shows drafts (a group) loses nothing: not counted as shed.
    h.t.app.turnDeps.draftsShed = () => true;
    try {
      await h.t.post(
        update({ messageId: 2, chat: group, text: "/help@switchboard_bot", entities: [{ type: "bot_command", offset: 0, length: 21 }] }),
      );
      await h.t.settle();
    } finally {
      h.t.app.turnDeps.draftsShed = wired;
    }
    expect(h.telegram.sends()).toHaveLength(2);
    expect(await shedCount()).toBe(before + 1);
  }, 30_000);

  it("an answer that arrives within a moment is sent as the message alone, with no draft a moment before it", async () => {
    h.llm.setScript(() => ({ reply: "Sure, one moment.", chunks: 3, chunkDelayMs: 60 }));
    await h.t.post(update({ text: "hi" }));
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["Sure, one moment."]);
    expect(h.telegram.callsOf("sendMessageDraft")).toHaveLength(0);
    const turn = await h.t.db.prisma.turn.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect(turn.toolCalls).toEqual([{ message: "Sure, one moment.", outcome: { status: "sent" } }]);
  }, 30_000);

  it("a Bot API without sendMessageDraft still gets the answer, and no draft is tried again", async () => {
    h.telegram.failNext({ method: "sendMessageDraft", status: 404, body: { ok: false, error_code: 404, description: "Not Found" } });
    h.llm.setScript(() => ({ reply: "first answer, a little longer than one chunk", chunks: 4, chunkDelayMs: 300 }));
    await h.t.post(update({ text: "one" }));
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["first answer, a little longer than one chunk"]);
    expect(h.telegram.callsOf("sendMessageDraft")).toHaveLength(1);
    await h.t.post(update({ text: "two" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(2);
    expect(h.telegram.callsOf("sendMessageDraft")).toHaveLength(1);
    const status = await describeStatus(h.t.app);
    expect(status.telegram.drafts).toEqual({ state: "unsupported", error: "Telegram 404: Not Found" });
  }, 30_000);

  it("groups get the final message only (drafts are for private chats)", async () => {
    h.llm.setScript(() => ({ reply: "answer for the group", chunks: 4, chunkDelayMs: 200 }));
    await h.t.post(update({ chat: group, text: "/help@switchboard_bot", entities: [{ type: "bot_command", offset: 0, length: 21 }] }));
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["answer for the group"]);
    expect(h.telegram.callsOf("sendMessageDraft")).toHaveLength(0);
    expect(h.telegram.callsOf("sendChatAction").length).toBeGreaterThanOrEqual(1);
  });
});
