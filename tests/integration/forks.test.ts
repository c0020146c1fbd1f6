import { describe, expect, it } from "vitest";
import { exitFork, resumeFork, startBackgroundTask, sweepForks } from "@/lib/pipeline/forks";
import type { Caller } from "@/lib/auth/operators";
import { sendEnvelope } from "@/lib/pipeline/envelopes";
import { sendOperatorReply } from "@/lib/pipeline/operator-reply";
import { FORK_CONFLICT_NOTICE } from "@/lib/pipeline/agent-turn";
import { retryEnvelope } from "@/lib/pipeline/retry";
import { updateSettings } from "@/lib/settings/store";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import type { FakeLlm } from "../helpers/fake-llm";
import { useHarness } from "../helpers/harness";

const lastPrompt = (llm: FakeLlm) => llm.requests.filter((r) => r.messages.at(-1)?.role !== "tool").at(-1)!;
const texts = (llm: FakeLlm) =>
  lastPrompt(llm)
    .messages.filter((m) => m.role !== "system")
    .map((m) => String(m.content).split("\n").pop());
const system = (llm: FakeLlm) => String(lastPrompt(llm).messages.find((m) => m.role === "system")?.content);

describe.each(databases)("forks on $name", ({ open }) => {
  const h = useHarness({
    open,
    script: (req) => {
      const last = String(req.messages.at(-1)?.content ?? "");
      if (last.includes("background task")) return { reply: "Daily digest: 3 new tickets" };
      return { reply: `ack: ${last.split("\n").pop()}` };
    },
  });

  let nextMessageId = 100;
  const say = async (text: string, replyTo?: { message_id: number; text: string; fromBot?: boolean }) => {
    await h.t.post(update({ messageId: ++nextMessageId, text, replyTo }));
    await h.t.settle();
    return nextMessageId;
  };
  const conversation = () => h.t.db.prisma.conversation.findFirstOrThrow();

  /** Main-session chat, then a background fork that posts a digest. Returns the digest message. */
  async function withBackgroundPost() {
    await say("main one");
    await say("main two");
    const { fork } = await startBackgroundTask(h.t.db, {
      conversationId: (await conversation()).id,
      task: "Post the daily digest",
      from: "operator:admin",
    });
    h.t.app.worker.kick();
    await h.t.settle();
    const post = await h.t.db.prisma.message.findFirstOrThrow({ where: { forkId: fork.id } });
    expect(post).toMatchObject({ senderKind: "agent", text: "Daily digest: 3 new tickets", replyToMessageId: null });
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } })).status).toBe("done");
    return { fork, post };
  }

  it("a reply to a background fork's post starts an interactive fork with its history and the pending updates", async () => {
    const { fork, post } = await withBackgroundPost();
    await say("main three, after the digest");
    h.llm.requests.length = 0;
    const replyId = await say("tell me more about the tickets", {
      message_id: Number(post.platformMessageId),
      text: post.text,
      fromBot: true,
    });

    const c = await conversation();
    const interactive = await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: c.activeForkId! } });
    expect(interactive).toMatchObject({ kind: "interactive", status: "active", parentForkId: fork.id });
    const reply = await h.t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: String(replyId) } });
    expect(reply.forkId).toBe(interactive.id);
    // The fork's session: main history before the fork began, the fork's post, the reply.
    // The main session's updates since then come as one data turn before the reply, never in the system prompt.
    expect(texts(h.llm)).toEqual([
      "main one",
      "ack: main one",
      "main two",
      "ack: main two",
      "Daily digest: 3 new tickets",
      expect.stringMatching(/^- \d{4}-\d\d-\d\d \d\d:\d\d UTC · agent: "ack: main three, after the digest"$/),
      "tell me more about the tickets",
    ]);
    const pending = String(lastPrompt(h.llm).messages.at(-2)!.content).split("\n");
    expect(pending[0]).toBe("--- telegram · main conversation since this fork began · 2 messages");
    expect(pending[1]).toMatch(/ · Alice: "main three, after the digest"$/);
    expect(system(h.llm)).toContain("You are continuing an earlier fork");
    expect(system(h.llm)).not.toContain("main three");
    // The answer is posted in the fork too.
    const answer = await h.t.db.prisma.message.findFirstOrThrow({ where: { replyToMessageId: reply.id } });
    expect(answer.forkId).toBe(interactive.id);

    // While it is active, the conversation's messages go to it.
    const nextId = await say("and the oldest one?");
    expect((await h.t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: String(nextId) } })).forkId).toBe(interactive.id);
  });

  it("a reply after the TTL just quotes: no fork", async () => {
    const { fork, post } = await withBackgroundPost();
    await h.t.db.prisma.fork.update({ where: { id: fork.id }, data: { startedAt: new Date(Date.now() - 8 * 86_400_000) } });
    h.llm.requests.length = 0;
    await say("still relevant?", { message_id: Number(post.platformMessageId), text: post.text, fromBot: true });
    expect((await conversation()).activeForkId).toBeNull();
    expect(String(lastPrompt(h.llm).messages.at(-1)!.content)).toContain('[↩ reply to agent: "Daily digest: 3 new tickets"]');
    expect(system(h.llm)).not.toContain("You are continuing an earlier fork");
  });

  it("a second fork while one is active is refused with a message to the user", async () => {
    const first = await withBackgroundPost();
    const second = await startBackgroundTask(h.t.db, {
      conversationId: (await conversation()).id,
      task: "Post the daily digest",
      from: "operator:admin",
    });
    h.t.app.worker.kick();
    await h.t.settle();
    const secondPost = await h.t.db.prisma.message.findFirstOrThrow({ where: { forkId: second.fork.id } });
    await say("about the first digest", { message_id: Number(first.post.platformMessageId), text: first.post.text, fromBot: true });
    const active = (await conversation()).activeForkId;
    const sendsBefore = h.telegram.sends().length;
    await say("and the second one", { message_id: Number(secondPost.platformMessageId), text: secondPost.text, fromBot: true });
    expect((await conversation()).activeForkId).toBe(active);
    expect(await h.t.db.prisma.fork.count({ where: { kind: "interactive" } })).toBe(1);
    expect(
      h.telegram
        .sends()
        .slice(sendsBefore)
        .map((c) => c.body.text),
    ).toEqual([FORK_CONFLICT_NOTICE]);
    const flagged = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "and the second one" } });
    expect(flagged.metadata).toMatchObject({ forkConflict: true, replied: true, notice: "fork conflict" });
  });

  it("a fork-conflict notice the platform refuses is recorded as not replied: the envelope fails with the reason", async () => {
    const first = await withBackgroundPost();
    const second = await startBackgroundTask(h.t.db, {
      conversationId: (await conversation()).id,
      task: "Post the daily digest",
      from: "operator:admin",
    });
    h.t.app.worker.kick();
    await h.t.settle();
    const secondPost = await h.t.db.prisma.message.findFirstOrThrow({ where: { forkId: second.fork.id } });
    await say("about the first digest", { message_id: Number(first.post.platformMessageId), text: first.post.text, fromBot: true });
    h.telegram.failNext({
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: not enough rights to send text messages to the chat" },
    });
    await say("and the second one", { message_id: Number(secondPost.platformMessageId), text: secondPost.text, fromBot: true });
    const flagged = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "and the second one" } });
    expect(flagged).toMatchObject({
      status: "failed",
      lastDeliveryError: expect.stringMatching(/^fork conflict notice not delivered: Telegram 400/),
    });
    expect(flagged.metadata).toMatchObject({ forkConflict: true, replied: false, notice: "fork conflict" });
    expect(await h.t.db.prisma.message.count({ where: { text: FORK_CONFLICT_NOTICE } })).toBe(0);
  });

  async function interactiveFork() {
    const { post } = await withBackgroundPost();
    await say("fork question", { message_id: Number(post.platformMessageId), text: post.text, fromBot: true });
    return (await conversation()).activeForkId!;
  }

  it("exit with discard: the fork keeps its history, the main session is untouched", async () => {
    const forkId = await interactiveFork();
    const mainBefore = await h.t.db.prisma.message.count({ where: { forkId: null } });
    await exitFork(h.t.app.turnDeps, forkId, "discard", "operator:admin");
    expect((await conversation()).activeForkId).toBeNull();
    expect(await h.t.db.prisma.message.count({ where: { forkId: null } })).toBe(mainBefore);
    expect(await h.t.db.prisma.message.count({ where: { forkId } })).toBe(2);
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: forkId } })).status).toBe("exited");
    const nextId = await say("back in main");
    expect((await h.t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: String(nextId) } })).forkId).toBeNull();
  });

  it("an operator's reply to a discarded fork's message joins the main session: the next prompt carries the promise", async () => {
    const forkId = await interactiveFork();
    const question = await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "fork question" } });
    expect(question.forkId).toBe(forkId);
    await exitFork(h.t.app.turnDeps, forkId, "discard", "operator:admin");
    const sent = await sendOperatorReply(h.t.app.turnDeps, {
      messageId: question.id,
      text: "your parcel ships tomorrow",
      operator: "admin",
    });
    expect(h.telegram.sends().at(-1)!.body).toMatchObject({
      text: "your parcel ships tomorrow",
      reply_parameters: { message_id: Number(question.platformMessageId) },
    });
    const promise = await h.t.db.prisma.message.findUniqueOrThrow({ where: { id: sent.messageId! } });
    // Written after the fork ended: it belongs to the main session, and keeps its thread.
    expect(promise).toMatchObject({ forkId: null, replyToMessageId: question.id, threadId: question.threadId });
    expect((await h.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: sent.envelopeId } })).forkId).toBeNull();
    h.llm.requests.length = 0;
    await say("so when does it ship?");
    expect(texts(h.llm)).toContain("(sent by a human operator) your parcel ships tomorrow");
  });

  it("a failed operator reply retried after its fork ended joins the session live then", async () => {
    const forkId = await interactiveFork();
    const question = await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "fork question" } });
    h.telegram.failNext({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } });
    await expect(
      sendOperatorReply(h.t.app.turnDeps, { messageId: question.id, text: "your parcel ships tomorrow", operator: "admin" }),
    ).rejects.toMatchObject({ code: "bad_gateway" });
    const failed = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "your parcel ships tomorrow" } });
    expect(failed).toMatchObject({ status: "failed", forkId });
    await exitFork(h.t.app.turnDeps, forkId, "discard", "operator:admin");
    await retryEnvelope(h.t.db, failed.id);
    h.t.app.worker.kick();
    await h.t.settle();
    const promise = await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "your parcel ships tomorrow" } });
    expect(promise.forkId).toBeNull();
    h.llm.requests.length = 0;
    await say("so when does it ship?");
    expect(texts(h.llm)).toContain("(sent by a human operator) your parcel ships tomorrow");
  });

  it("an envelope replying to an active fork's message joins that fork; after the fork ended, the main session", async () => {
    const forkId = await interactiveFork();
    const question = await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "fork question" } });
    const parent = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { messageId: question.id } });
    const c = await conversation();
    const viaApi = (text: string) =>
      sendEnvelope(
        h.t.db,
        { from: "operator:admin", to: `channel:telegram:${c.platformChatId}`, text, replyTo: parent.id },
        { operator: { name: "admin" } as Caller["operator"], role: "admin", via: "token" },
      );
    await viaApi("in the fork");
    h.t.app.worker.kick();
    await h.t.settle();
    expect((await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "in the fork" } })).forkId).toBe(forkId);
    await exitFork(h.t.app.turnDeps, forkId, "discard", "operator:admin");
    await viaApi("after the fork");
    h.t.app.worker.kick();
    await h.t.settle();
    expect((await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "after the fork" } })).forkId).toBeNull();
  });

  it("exit with save: the fork's messages join the main session", async () => {
    const forkId = await interactiveFork();
    await exitFork(h.t.app.turnDeps, forkId, "save", "operator:admin");
    expect(await h.t.db.prisma.message.count({ where: { forkId } })).toBe(0);
    expect(await h.t.db.prisma.message.count({ where: { text: "fork question", forkId: null } })).toBe(1);
    h.llm.requests.length = 0;
    await say("continue in main");
    expect(texts(h.llm)).toContain("fork question");
  });

  it("exit with report: a summary is written into the main session", async () => {
    h.llm.setScript((req) =>
      String(req.messages.at(-1)?.content ?? "").includes("background task") ? { reply: "Daily digest: 3 new tickets" } : { reply: "ok" },
    );
    const forkId = await interactiveFork();
    await exitFork(h.t.app.turnDeps, forkId, "report", "operator:admin");
    const note = await h.t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "system" } });
    expect(note.forkId).toBeNull();
    // Labelled as the model's own summary, and shown to the model later as a marked note, never as the user's words.
    expect(note.text).toMatch(/^The model's summary of fork #\d+: ok$/);
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: forkId } })).summary).toBe(note.text);
  });

  it("idle timeout: the first warns in the chat, the second reports and exits", async () => {
    const forkId = await interactiveFork();
    await updateSettings(h.t.db, { forkIdleMinutes: 10 }, "test");
    const in11 = new Date(Date.now() + 11 * 60_000);
    await sweepForks(h.t.app.turnDeps, in11);
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: forkId } })).idleWarnings).toBe(1);
    expect(h.telegram.sends().at(-1)!.body.text).toContain("quiet for 10 minutes");
    expect((await conversation()).activeForkId).toBe(forkId);
    await sweepForks(h.t.app.turnDeps, new Date(in11.getTime() + 11 * 60_000));
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: forkId } })).exitStrategy).toBe("report");
    expect((await conversation()).activeForkId).toBeNull();
    expect(await h.t.db.prisma.message.count({ where: { senderKind: "system" } })).toBe(1);
  });

  it("resume from the API: the next message lands in that fork; a second resume is refused", async () => {
    const { fork } = await withBackgroundPost();
    const interactive = await resumeFork(h.t.db, fork.id, "operator:admin");
    expect(interactive).toMatchObject({ kind: "interactive", parentForkId: fork.id, status: "active" });
    const nextId = await say("resumed by the operator");
    expect((await h.t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: String(nextId) } })).forkId).toBe(interactive.id);
    const other = await startBackgroundTask(h.t.db, { conversationId: (await conversation()).id, task: "another", from: "operator:admin" });
    await expect(resumeFork(h.t.db, other.fork.id, "operator:admin")).rejects.toMatchObject({ code: "conflict" });
    await exitFork(h.t.app.turnDeps, interactive.id, "discard", "operator:admin");
    const again = await resumeFork(h.t.db, interactive.id, "operator:admin");
    expect(again).toMatchObject({ id: interactive.id, status: "active" });
    expect((await conversation()).activeForkId).toBe(interactive.id);
  });

  it("twenty resumes at once (a double click, or many): one interactive fork becomes active, the losers change nothing", async () => {
    const { fork } = await withBackgroundPost();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => resumeFork(h.t.db, fork.id, "operator:admin")));
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    // Losers either saw the winner already active (continue: the same fork back) or were refused (409).
    for (const r of lost) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    expect(new Set(won.map((r) => (r as PromiseFulfilledResult<{ id: number }>).value.id)).size).toBe(1);
    const children = await h.t.db.prisma.fork.findMany({ where: { parentForkId: fork.id } });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ kind: "interactive", status: "active" });
    expect((await conversation()).activeForkId).toBe(children[0]!.id);

    // Reopening an exited interactive fork at once, twice over: still one active fork.
    await exitFork(h.t.app.turnDeps, children[0]!.id, "discard", "operator:admin");
    const other = await startBackgroundTask(h.t.db, { conversationId: (await conversation()).id, task: "another", from: "operator:admin" });
    h.t.app.worker.kick();
    await h.t.settle();
    await Promise.allSettled([
      ...Array.from({ length: 10 }, () => resumeFork(h.t.db, children[0]!.id, "operator:admin")),
      ...Array.from({ length: 10 }, () => resumeFork(h.t.db, other.fork.id, "operator:admin")),
    ]);
    const active = await h.t.db.prisma.fork.findMany({ where: { kind: "interactive", status: "active" } });
    expect(active).toHaveLength(1);
    expect((await conversation()).activeForkId).toBe(active[0]!.id);
  });

  it("background forks older than the TTL are expired by the sweep, not at read time", async () => {
    const { fork } = await withBackgroundPost();
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } })).status).toBe("done");
    await sweepForks(h.t.app.turnDeps, new Date(Date.now() + 8 * 86_400_000));
    expect((await h.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } })).status).toBe("expired");
  });
});
