import { describe, expect, it } from "vitest";
import { sendOperatorMessage } from "@/lib/pipeline/operator-reply";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { type FakeLlm, startFakeLlm } from "../helpers/fake-llm";
import { type FakeTelegram, startFakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";
import { callRoute } from "../helpers/route-call";

const TOKEN = "test-api-token-regenerate-0123456789";
const CANT_EDIT = "Bad Request: message can't be edited";

const regenerate = (id: number) =>
  callRoute(TOKEN, "app/api/v1/messages/[id]/regenerate/route.ts", "POST", `/api/v1/messages/${id}/regenerate`, { id: String(id) });
const getTurn = (id: number) => callRoute(TOKEN, "app/api/v1/turns/[id]/route.ts", "GET", `/api/v1/turns/${id}`, { id: String(id) });
const setInstructions = (agentInstructions: string) =>
  callRoute(TOKEN, "app/api/v1/settings/route.ts", "PATCH", "/api/v1/settings", {}, { agentInstructions });

type Setup = { t: TestApp; telegram: FakeTelegram; llm: FakeLlm };

/** POST /api/v1/messages/{id}/regenerate on a live Telegram bot (the fake Bot API) with the fake model. */
describe.each(databases)("regenerating the agent's answer on $name", ({ open }) => {
  /** A chat where the user asked and the agent answered "The price is 1O0 EUR"; the model answers `next` from then on. */
  async function withAnswer(
    next: string,
    body: (s: Setup & { answer: { id: number; platformMessageId: string | null } }) => Promise<void>,
  ) {
    const testDb: TestDb = await open();
    const telegram = await startFakeTelegram();
    const llm = await startFakeLlm(() => ({ reply: "The price is 1O0 EUR" }));
    const t = await startTestApp({ db: testDb, telegram, llm, env: { SWITCHBOARD_API_TOKEN: TOKEN } });
    installRouteApp(t.app, TOKEN);
    try {
      await t.post(update({ text: "price?" }));
      await t.settle();
      const answer = await t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "agent" } });
      llm.setScript(() => ({ reply: next }));
      await body({ t, telegram, llm, answer });
    } finally {
      uninstallRouteApp();
      await t.settle();
      await t.stop();
      await testDb.close();
      await telegram.close();
      await llm.close();
    }
  }

  it("edits the answer in place on Telegram, keeps the old text as a revision, and records a second turn linked to the first", async () => {
    await withAnswer("The price is 100 EUR", async ({ t, telegram, llm, answer }) => {
      const conversation = await t.db.prisma.conversation.findFirstOrThrow();
      const [original] = await t.db.prisma.turn.findMany();
      const response = await regenerate(answer.id);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ mode: "edited", message: { id: answer.id, text: "The price is 100 EUR" } });
      expect(response.body.message.revisions).toEqual([
        { text: "The price is 1O0 EUR", replacedAt: expect.any(String), editedBy: "regenerate api" },
      ]);
      expect(telegram.callsOf("editMessageText").map((c) => c.body)).toEqual([
        { chat_id: conversation.platformChatId, message_id: Number(answer.platformMessageId), text: "The price is 100 EUR" },
      ]);
      expect(telegram.message(conversation.platformChatId, answer.platformMessageId!)).toEqual({ text: "The price is 100 EUR" });
      // No second message went out.
      expect(await t.db.prisma.message.count({ where: { senderKind: "agent" } })).toBe(1);
      // Both turns stay inspectable, each pointing at the other.
      const turnId = response.body.turn.id as number;
      expect(response.body.turn).toEqual({ id: turnId, regeneratesTurnId: original!.id });
      const before = await getTurn(original!.id);
      const after = await getTurn(turnId);
      expect(before).toMatchObject({ status: 200, body: { regeneratesTurnId: null, regeneratedBy: [turnId] } });
      expect(after).toMatchObject({ status: 200, body: { regeneratesTurnId: original!.id, regeneratedBy: [], error: null } });
      expect(JSON.stringify(after.body.toolCalls)).toContain("The price is 100 EUR");
      expect(JSON.stringify(after.body.prompt)).toContain("price?");
      expect(after.body.usage).toMatchObject({ inputTokens: expect.any(Number) });
      // The answer's turn is now the regenerate's (the timeline's "Inspect" opens it).
      const messageTurn = await callRoute(TOKEN, "app/api/v1/messages/[id]/turn/route.ts", "GET", `/api/v1/messages/${answer.id}/turn`, {
        id: String(answer.id),
      });
      expect(messageTurn.body).toEqual({ turnId });
      // Once more: the answer's turn is the latest regenerate's, which replaced the first regenerate's.
      llm.setScript(() => ({ reply: "The price is 100 EUR, tax included" }));
      const again = await regenerate(answer.id);
      expect(again.body.turn).toEqual({ id: expect.any(Number), regeneratesTurnId: turnId });
      const latest = await callRoute(TOKEN, "app/api/v1/messages/[id]/turn/route.ts", "GET", `/api/v1/messages/${answer.id}/turn`, {
        id: String(answer.id),
      });
      expect(latest.body).toEqual({ turnId: again.body.turn.id });
    });
  });

  it("sends the new answer as a reply to the same user message when Telegram refuses the edit", async () => {
    await withAnswer("The price is 100 EUR", async ({ t, telegram, answer }) => {
      const user = await t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "user" } });
      telegram.failNext({ method: "editMessageText", status: 400, body: { ok: false, error_code: 400, description: CANT_EDIT } });
      const sendsBefore = telegram.callsOf("sendMessage").length;
      const response = await regenerate(answer.id);
      expect(response.status).toBe(200);
      expect(response.body.mode).toBe("sent");
      expect(response.body.message).toMatchObject({ text: "The price is 100 EUR", senderKind: "agent", replyToMessageId: user.id });
      expect(response.body.message.id).not.toBe(answer.id);
      const sent = telegram.callsOf("sendMessage").slice(sendsBefore);
      expect(sent.map((c) => c.body.text)).toEqual(["The price is 100 EUR"]);
      expect(JSON.stringify(sent[0]!.body)).toContain(user.platformMessageId!);
      // The old answer stays as it was.
      expect(await t.db.prisma.message.findUniqueOrThrow({ where: { id: answer.id } })).toMatchObject({
        text: "The price is 1O0 EUR",
        editedAt: null,
      });
      expect(await t.db.prisma.turn.count()).toBe(2);
    });
  });

  it("the new turn's prompt has today's instructions", async () => {
    await withAnswer("The price is 100 EUR", async ({ llm, answer, t }) => {
      expect(JSON.stringify(llm.requests[0])).not.toContain("QUOKKA-RULES");
      expect((await setInstructions("Always follow QUOKKA-RULES.")).status).toBe(200);
      const response = await regenerate(answer.id);
      expect(response.status).toBe(200);
      expect(JSON.stringify(llm.requests.at(-1))).toContain("QUOKKA-RULES");
      const turn = await t.db.prisma.turn.findUniqueOrThrow({ where: { id: response.body.turn.id } });
      expect(turn.system).toContain("QUOKKA-RULES");
    });
  });

  it("refuses a user's or an operator's message (409 with the reason) and an unknown id (404); nothing is asked", async () => {
    await withAnswer("unused", async ({ t, telegram, llm }) => {
      const conversation = await t.db.prisma.conversation.findFirstOrThrow();
      const user = await t.db.prisma.message.findFirstOrThrow({ where: { senderKind: "user" } });
      const aside = await sendOperatorMessage(t.app, { conversationId: conversation.id, text: "an operator's words", operator: "ana" });
      if (!aside.recorded) throw new Error("not recorded");
      const requests = llm.requests.length;
      const ofUser = await regenerate(user.id);
      expect(ofUser).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
      expect(ofUser.body.error.message).toMatch(/only the agent's answers.*user's/);
      const ofOperator = await regenerate(aside.messageId);
      expect(ofOperator.status).toBe(409);
      expect(ofOperator.body.error.message).toMatch(/operator's/);
      expect((await regenerate(2147483647)).status).toBe(404);
      expect(llm.requests.length).toBe(requests);
      expect(telegram.callsOf("editMessageText")).toHaveLength(0);
      expect(await t.db.prisma.turn.count()).toBe(1);
    });
  });

  it("a model that stays silent is a 409, a failing one a 502, and nothing changes", async () => {
    await withAnswer("unused", async ({ t, telegram, llm, answer }) => {
      llm.setScript(() => ({ silent: true }));
      const silent = await regenerate(answer.id);
      expect(silent.status).toBe(409);
      expect(silent.body.error.message).toMatch(/without the reply tool/);
      llm.setScript(() => ({ status: 500, error: { message: "boom" } }));
      const failed = await regenerate(answer.id);
      expect(failed.status).toBe(502);
      expect(telegram.callsOf("editMessageText")).toHaveLength(0);
      expect(await t.db.prisma.turn.count()).toBe(1);
      expect((await t.db.prisma.message.findUniqueOrThrow({ where: { id: answer.id } })).text).toBe("The price is 1O0 EUR");
    });
  });

  it("two regenerates of one message at once: one runs, the other is a 409", async () => {
    await withAnswer("unused", async ({ t, telegram, llm, answer }) => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      llm.setScript(() => ({ reply: "The price is 100 EUR", until: held }));
      const first = regenerate(answer.id);
      const second = regenerate(answer.id);
      // Whichever got there second is refused at once; the model is then let go.
      const settled = await Promise.race([first.then(() => "first"), second.then(() => "second")]);
      release();
      const [a, b] = await Promise.all([first, second]);
      const refused = settled === "first" ? a : b;
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(/being regenerated already/);
      expect((settled === "first" ? b : a).status).toBe(200);
      expect(telegram.callsOf("editMessageText")).toHaveLength(1);
      expect(await t.db.prisma.turn.count()).toBe(2);
    });
  });
});
