import { describe, expect, it } from "vitest";
import { openDb } from "@/lib/db/database";
import { writeTransition } from "@/lib/db/handoff";
import { createFork, setActiveFork } from "@/lib/db/forks";
import { AppError } from "@/lib/errors";
import { errorResponse } from "@/lib/http/respond";
import { changeHandoff, handoffTimeouts, handoffView, listOpenHandoffs, ON_CALL, requestHandoff } from "@/lib/pipeline/handoff";
import { allowedFrom, stateAfter } from "@/lib/pipeline/handoff-rules";
import { startBackgroundTask } from "@/lib/pipeline/forks";
import { sendOperatorReply } from "@/lib/pipeline/operator-reply";
import { updateSettings } from "@/lib/settings/store";
import { defaultSettings } from "@/lib/settings/schema";
import { update } from "../fixtures/telegram";
import { hasPostgres, POSTGRES_SKIP_REASON, postgresTestDb } from "../helpers/db";
import { useScriptedApp } from "../helpers/harness";

const WAITING = defaultSettings.handoffWaitingMessage;

describe("human handoff (AI SDK mock model)", () => {
  const app = useScriptedApp();
  const { start, sendTexts } = app;
  const conversation = () => app.t.db.prisma.conversation.findFirstOrThrow();
  const transitions = async () =>
    (await app.t.db.prisma.envelope.findMany({ orderBy: { id: "asc" } })).filter(
      (e) =>
        (e.metadata as { handoff?: unknown }).handoff && e.status === "done" && e.text.match(/^(handoff requested|taken over|handed back)/),
    );

  it("the model replies and hands off in one turn: both go out, the conversation waits, the agent then stays silent", async () => {
    const { calls } = await start([{ replies: ["I'm passing you to a colleague."], handoffs: ["the user wants a refund decision"] }]);
    await app.t.post(update({ text: "I want my money back, now" }));
    await app.t.settle();
    expect(sendTexts()).toEqual(["I'm passing you to a colleague.", WAITING]);
    // The handoff ended the turn: no further model call.
    expect(calls).toHaveLength(1);
    const c = await conversation();
    expect(handoffView(c)).toMatchObject({ state: "waiting", reason: "the user wants a refund decision", operator: null });
    const [request] = await transitions();
    expect(request).toMatchObject({ from: "agent:main", to: ON_CALL, conversationId: c.id });
    expect((request.metadata as { handoff: unknown }).handoff).toMatchObject({ action: "request", state: "waiting" });
    const turn = await app.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.toolCalls).toContainEqual({
      tool: "handoff",
      message: "the user wants a refund decision",
      outcome: { status: "handed off" },
    });
    expect(turn.system).toContain("`handoff` tool");
    expect(turn.system).toContain(defaultSettings.handoffGuidance);

    // Waiting: a new message is stored, the model is not called, nothing is sent.
    await app.t.post(update({ text: "hello? anyone?" }));
    await app.t.settle();
    expect(calls).toHaveLength(1);
    expect(sendTexts()).toHaveLength(2);
    const silent = await app.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "hello? anyone?" } });
    expect(silent.status).toBe("done");
    expect((silent.metadata as Record<string, unknown>).skipped).toBe("handed off to a human");
    expect(await listOpenHandoffs(app.t.db)).toMatchObject([
      { conversationId: c.id, state: "waiting", reason: "the user wants a refund decision" },
    ]);
  });

  it("handoff called twice in one step: one handoff, the second call gets a model-friendly error", async () => {
    await start([{ handoffs: ["first reason", "second reason"] }]);
    await app.t.post(update({ text: "help" }));
    await app.t.settle();
    expect(await transitions()).toHaveLength(1);
    expect(sendTexts()).toEqual([WAITING]);
    const turn = await app.t.db.prisma.turn.findFirstOrThrow();
    // Like `reply`: the second call never reached the handoff (the model got the guard's error).
    expect(turn.toolCalls).toEqual([{ tool: "handoff", message: "first reason", outcome: { status: "handed off" } }]);
    const envelope = await app.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "help" } });
    expect(envelope.status).toBe("done");
    expect((envelope.metadata as Record<string, unknown>).handoff).toEqual({ action: "request", via: "tool" });
  });

  it("the /human command hands off at once with no model configured, and only once", async () => {
    await start(null);
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    expect(handoffView(await conversation())).toMatchObject({ state: "waiting", reason: "the user asked for a human" });
    expect(sendTexts()).toEqual([WAITING]);
    // The waiting message answers the command natively.
    expect(app.telegram.sends()[0].body.reply_parameters).toBeTruthy();
    const command = await app.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "/human" } });
    expect((command.metadata as Record<string, unknown>).skipped).toBe("handoff command");
    await app.t.post(update({ text: "/human@SwitchboardBot please, it's urgent" }));
    await app.t.settle();
    expect(sendTexts()).toEqual([WAITING]);
    expect(await transitions()).toHaveLength(1);
    // Asked again after a minute of waiting: one reminder, however often they ask.
    const { id } = await conversation();
    await app.t.db.prisma.conversation.update({ where: { id }, data: { handoffRequestedAt: new Date(Date.now() - 120_000) } });
    await app.t.post(update({ text: "/human" }));
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    expect(sendTexts()).toEqual([WAITING, WAITING]);
    expect(app.telegram.sends()[1].body.reply_parameters).toBeTruthy();
    // An operator has it: the command is just a message the operator sees.
    await changeHandoff(app.t.app.turnDeps, id, { action: "take" }, { name: "alice" });
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    expect(sendTexts()).toEqual([WAITING, WAITING]);
    expect(await transitions()).toHaveLength(2);
  });

  it("the command is configurable: the old one becomes an ordinary message", async () => {
    const { calls } = await start([{ replies: ["plain answer"] }]);
    await updateSettings(app.t.db, { handoffCommand: "/operator" }, "test");
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    expect(handoffView(await conversation())).toBeNull();
    expect(calls).toHaveLength(1);
    await app.t.post(update({ text: "/operator" }));
    await app.t.settle();
    expect(handoffView(await conversation())).toMatchObject({ state: "waiting" });
  });

  it("every transition, its envelope, and a 409 for each invalid one", async () => {
    await start([{ replies: ["hi"] }]);
    await app.t.post(update({ text: "hello" }));
    await app.t.settle();
    const { id } = await conversation();
    const deps = app.t.app.turnDeps;
    const refused = async (action: "request" | "take" | "release") => {
      const error = await changeHandoff(deps, id, { action }, { name: "alice" }).catch((e) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(errorResponse(error).status).toBe(409);
      return (error as Error).message;
    };
    // bot: take and release are refused.
    expect(await refused("take")).toBe("nothing to take: no handoff is waiting here");
    expect(await refused("release")).toBe("the agent already has this conversation: nothing to hand back");
    expect(await changeHandoff(deps, id, { action: "request", reason: "needs a manager" }, { name: "alice" })).toMatchObject({
      state: "waiting",
      reason: "needs a manager",
    });
    expect(await refused("request")).toBe("a handoff is already waiting for an operator");
    expect(await changeHandoff(deps, id, { action: "take" }, { name: "alice" })).toMatchObject({
      state: "assigned",
      operator: "alice",
      reason: "needs a manager",
    });
    expect(await refused("take")).toBe("another operator already took this conversation");
    expect(await refused("request")).toBe("an operator already has this conversation");
    expect(await changeHandoff(deps, id, { action: "release" }, { name: "alice" })).toBeNull();
    expect(await refused("release")).toBe("the agent already has this conversation: nothing to hand back");
    const after = await conversation();
    expect(after.lastHandoffOperator).toBe("alice");
    expect(after.lastHandoffUntil).not.toBeNull();
    expect((await transitions()).map((e) => [e.from, e.to, (e.metadata as { handoff: { action: string } }).handoff.action])).toEqual([
      ["operator:alice", "agent:main", "request"],
      ["operator:alice", "agent:main", "take"],
      ["operator:alice", "agent:main", "release"],
    ]);
    // A refused transition wrote nothing.
    expect(await app.t.db.prisma.envelope.count({ where: { conversationId: id, from: "operator:alice" } })).toBe(3);
  });

  it("after the hand-back the next turn carries the note, and the bot answers again", async () => {
    const { calls } = await start([{ handoffs: ["wants a person"] }, { replies: ["Back with you."] }]);
    await app.t.post(update({ text: "get me a person" }));
    await app.t.settle();
    const { id } = await conversation();
    const deps = app.t.app.turnDeps;
    await changeHandoff(deps, id, { action: "take" }, { name: "alice" });
    const userMessage = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: "get me a person" } });
    await sendOperatorReply(deps, {
      messageId: userMessage.id,
      text: "Hi, Alice from support: your refund is approved.",
      operator: "alice",
    });
    await changeHandoff(deps, id, { action: "release" }, { name: "alice" });
    expect(calls).toHaveLength(1);
    await app.t.post(update({ text: "thanks! anything else?", date: Math.floor(Date.now() / 1000) + 2 }));
    await app.t.settle();
    expect(calls).toHaveLength(2);
    expect(sendTexts().at(-1)).toBe("Back with you.");
    const prompt = JSON.stringify(calls[1]);
    expect(prompt).toContain("A human operator (alice) handled this conversation from");
    expect(prompt).toContain("--- note · ");
    expect(prompt).toContain("(sent by a human operator) Hi, Alice from support: your refund is approved.");
    // The note sits before the user's new message.
    expect(prompt.indexOf("handled this conversation")).toBeLessThan(prompt.indexOf("thanks! anything else?"));
  });

  it("nobody comes: after the timeout the user is told once, and the conversation stays waiting in the inbox", async () => {
    await start(null);
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    const deps = app.t.app.turnDeps;
    await handoffTimeouts(deps, new Date(Date.now() + 10 * 60_000));
    expect(sendTexts()).toEqual([WAITING]);
    const later = new Date(Date.now() + (defaultSettings.handoffTimeoutMinutes + 1) * 60_000);
    await handoffTimeouts(deps, later);
    await handoffTimeouts(deps, new Date(later.getTime() + 60_000));
    expect(sendTexts()).toEqual([WAITING, defaultSettings.handoffTimeoutMessage]);
    const c = await conversation();
    expect(handoffView(c)).toMatchObject({ state: "waiting" });
    expect(c.handoffTimedOutAt).not.toBeNull();
    expect(await listOpenHandoffs(app.t.db)).toHaveLength(1);
  });

  it("a background task in a handed-off conversation does not run: nothing is posted, the task fails with the reason", async () => {
    const { calls } = await start([{ replies: ["task output"] }]);
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    const { id } = await conversation();
    const { fork, envelope } = await startBackgroundTask(app.t.db, {
      conversationId: id,
      task: "remind them about the invoice",
      from: "operator:alice",
    });
    app.t.app.worker.messageArrived();
    await app.t.settle();
    expect(calls).toHaveLength(0);
    expect(sendTexts()).toEqual([WAITING]);
    expect(await app.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: envelope.id } })).toMatchObject({
      status: "failed",
      lastDeliveryError: "not run: the conversation is handed off to a human",
    });
    expect(await app.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } })).toMatchObject({ status: "failed" });
  });

  it("the operators' Telegram chat is told about a new handoff when set", async () => {
    await start(null);
    await updateSettings(app.t.db, { handoffTelegramChatId: "-100777" }, "test");
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    const toOperators = app.telegram.sends().filter((c) => String(c.body.chat_id) === "-100777");
    expect(toOperators).toHaveLength(1);
    expect(toOperators[0].body.text).toContain("Needs a human");
    expect(toOperators[0].body.text).toContain("the user asked for a human");
  });

  it("a handoff inside an interactive fork reports the fork first, then hands off the conversation", async () => {
    await start(null);
    await app.t.post(update({ text: "hello" }));
    await app.t.settle();
    const { id } = await conversation();
    const fork = await createFork(app.t.db, { conversationId: id, kind: "interactive", status: "active", startedBy: "test" });
    expect(await setActiveFork(app.t.db, id, fork.id, null)).toBeTruthy();
    await app.t.post(update({ text: "/human" }));
    await app.t.settle();
    const after = await conversation();
    expect(after.activeForkId).toBeNull();
    expect(handoffView(after)).toMatchObject({ state: "waiting" });
    const exited = await app.t.db.prisma.fork.findUniqueOrThrow({ where: { id: fork.id } });
    expect(exited).toMatchObject({ status: "exited", exitStrategy: "report" });
    // The summary is in the main session, before the handoff.
    const summary = await app.t.db.prisma.message.findFirstOrThrow({ where: { conversationId: id, senderKind: "system", forkId: null } });
    expect(summary.text).toContain(`Fork #${fork.id}`);
    const [request] = await transitions();
    expect(summary.createdAt.getTime()).toBeLessThanOrEqual(request.createdAt.getTime());
  });
});

describe.skipIf(!hasPostgres)("human handoff on PostgreSQL: two instances take the same conversation", () => {
  it(hasPostgres ? "exactly one take wins, the other gets 409" : POSTGRES_SKIP_REASON, async () => {
    const testDb = await postgresTestDb();
    const second = await openDb(testDb.url);
    try {
      const now = new Date();
      const c = await testDb.db.prisma.conversation.create({ data: { channel: "telegram", platformChatId: "42", type: "private" } });
      const envelope = { from: "agent:main", to: ON_CALL, text: "handoff requested: race", metadata: { handoff: { action: "request" } } };
      expect(
        await writeTransition(testDb.db, {
          conversationId: c.id,
          action: "request",
          from: allowedFrom.request,
          to: stateAfter.request,
          at: now,
          reason: "race",
          envelope,
        }),
      ).not.toBeNull();
      // The conditional UPDATE itself, from two handles at once (no read first).
      const take = (db: typeof second, operator: string) =>
        writeTransition(db, {
          conversationId: c.id,
          action: "take",
          from: allowedFrom.take,
          to: stateAfter.take,
          at: new Date(),
          operator,
          envelope: { from: `operator:${operator}`, to: "agent:main", text: "taken", metadata: { handoff: { action: "take" } } },
        });
      const raced = await Promise.all([take(testDb.db, "alice"), take(second, "bob")]);
      expect(raced.filter((r) => r !== null)).toHaveLength(1);
      const winner = (await testDb.db.prisma.conversation.findUniqueOrThrow({ where: { id: c.id } })).handoffOperator;
      expect(["alice", "bob"]).toContain(winner);
      expect(await testDb.db.prisma.envelope.count({ where: { conversationId: c.id, text: "taken" } })).toBe(1);

      // Through the pipeline: back to waiting, then two instances' operators race again.
      await writeTransition(testDb.db, {
        conversationId: c.id,
        action: "release",
        from: allowedFrom.release,
        to: stateAfter.release,
        at: new Date(),
        operator: winner,
        envelope: { from: "operator:x", to: "agent:main", text: "released", metadata: {} },
      });
      await writeTransition(testDb.db, {
        conversationId: c.id,
        action: "request",
        from: allowedFrom.request,
        to: stateAfter.request,
        at: new Date(),
        reason: "again",
        envelope,
      });
      const deps = (db: typeof second) => ({ db, channels: {}, model: null, timeoutMs: 1000, requestHandoff });
      const results = await Promise.allSettled([
        changeHandoff(deps(testDb.db), c.id, { action: "take" }, { name: "carol" }),
        changeHandoff(deps(second), c.id, { action: "take" }, { name: "dave" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(errorResponse(rejected.reason).status).toBe(409);
    } finally {
      await second.close();
      await testDb.close();
    }
  });
});
