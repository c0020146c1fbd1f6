import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { sendOperatorReply, UNRECORDED_REPLY_WARNING } from "@/lib/pipeline/operator-reply";
import { getConversationTimeline } from "@/lib/pipeline/timeline";
import { messageThread } from "@/lib/db/messages";
import type { Database } from "@/lib/db/database";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { useHarness } from "../helpers/harness";

/** Makes every insert of a message from `senderKind` fail in the database, like a full disk would. */
async function failSavesFrom(db: Database, senderKind: "operator" | "agent") {
  if (db.dialect === "sqlite") {
    await db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER "fail_save" BEFORE INSERT ON "Message" WHEN NEW."senderKind" = '${senderKind}' BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END`,
    );
  } else {
    await db.prisma.$executeRawUnsafe(
      `CREATE FUNCTION "fail_save"() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected: disk full'; END $$ LANGUAGE plpgsql`,
    );
    await db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER "fail_save" BEFORE INSERT ON "Message" FOR EACH ROW WHEN (NEW."senderKind" = '${senderKind}') EXECUTE FUNCTION "fail_save"()`,
    );
  }
}

describe.each(databases)("delivery results on $name", ({ open }) => {
  const h = useHarness({ open, script: () => ({ reply: "the agent's answer" }) });

  async function inboundMessage() {
    await h.t.post(update({ messageId: 1, text: "hello" }));
    await h.t.settle();
    return h.t.db.prisma.message.findFirstOrThrow({ where: { platformMessageId: "1" } });
  }

  it("an operator reply delivered but not saved is a success with recorded: false, never an invitation to resend", async () => {
    const inbound = await inboundMessage();
    await failSavesFrom(h.t.db, "operator");
    const sendsBefore = h.telegram.sends().length;

    const result = await sendOperatorReply(h.t.app, { messageId: inbound.id, text: "from the operator", operator: "admin" });

    expect(result).toEqual({
      ok: true,
      recorded: false,
      envelopeId: expect.any(Number),
      messageId: null,
      warning: UNRECORDED_REPLY_WARNING,
    });
    expect(
      h.telegram
        .sends()
        .slice(sendsBefore)
        .map((c) => c.body.text),
    ).toEqual(["from the operator"]);
    // The envelope says it went out (done: nothing resends it) and why the history lacks it.
    const envelope = await h.t.db.prisma.envelope.findUniqueOrThrow({ where: { id: result.envelopeId } });
    expect(envelope).toMatchObject({ status: "done", lastDeliveryError: null, messageId: null });
    expect(envelope.metadata).toMatchObject({
      platformMessageId: expect.any(String),
      saveError: expect.stringContaining("injected: disk full"),
    });
    expect(await h.t.db.prisma.message.count({ where: { senderKind: "operator" } })).toBe(0);
  });

  it("an operator reply the platform refuses is a 502 naming the envelope, outcome not_sent", async () => {
    const inbound = await inboundMessage();
    h.telegram.failNext({ status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } });
    const failure = await sendOperatorReply(h.t.app, { messageId: inbound.id, text: "from the operator", operator: "admin" }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      status: 502,
      message: "Telegram 403: Forbidden: bot was blocked by the user",
      details: { outcome: "not_sent" },
    });
  });

  it("the timeline and the thread give a failed send's outcome (possibly delivered vs refused) from the metadata, not the text", async () => {
    const inbound = await inboundMessage();
    h.telegram.failNext({ status: 500, body: { ok: false, error_code: 500, description: "Internal Server Error" } });
    await sendOperatorReply(h.t.app, { messageId: inbound.id, text: "maybe delivered", operator: "admin" }).catch(() => {});
    h.telegram.failNext({ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } });
    await sendOperatorReply(h.t.app, { messageId: inbound.id, text: "refused", operator: "admin" }).catch(() => {});
    const { messages } = await getConversationTimeline(h.t.db, inbound.conversationId, { take: 50 });
    const kept = messages.find((m) => m.text === "maybe delivered")!;
    expect(kept.envelopes).toEqual([expect.objectContaining({ status: "failed", outcome: "unknown" })]);
    expect(kept.envelopes[0]).not.toHaveProperty("metadata");
    // The refused send left no message; its envelope hangs under the message it answered.
    const thread = (await messageThread(h.t.db, inbound.id))!;
    const outcomes = thread.members.flatMap((m) => m.envelopes).map((e) => e.outcome);
    expect(outcomes).toEqual(expect.arrayContaining(["unknown"]));
    expect(await h.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "refused" } })).toMatchObject({
      status: "failed",
      metadata: expect.objectContaining({ outcome: "not_sent" }),
    });
  });

  it("an agent reply delivered but not saved answers the turn (replied: true, never retried into a second copy)", async () => {
    await failSavesFrom(h.t.db, "agent");
    await h.t.post(update({ messageId: 1, text: "hello" }));
    await h.t.settle();
    expect(h.telegram.sends().map((c) => c.body.text)).toEqual(["the agent's answer"]);
    const inbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });
    expect(inbound).toMatchObject({ status: "done", lastDeliveryError: null, attempts: 1 });
    expect(inbound.metadata).toMatchObject({
      replied: true,
      turnError: expect.stringMatching(/^reply delivered, but not saved to the history: .*injected: disk full/),
    });
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    expect(turn.error).toMatch(/not saved to the history/);
  });
});
