import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBot } from "@/lib/bots/manage";
import { ensureEnvBot } from "@/lib/db/bots";
import { writeBotChange } from "@/lib/db/settings";
import { sqlitePath } from "@/lib/db/migrations.mjs";
import { SECRET_HEADER } from "@/lib/channels/telegram/webhook";
import { BOT, update, type UpdateOptions } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeFiles, type FakeFiles } from "../helpers/fake-files";
import { startFakeLine, type FakeLine } from "../helpers/fake-line";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";
import { callRoute } from "../helpers/route-call";

const API_TOKEN = "bots-api-token-0123456789";
const TOKEN_A = `5550001:${"A".repeat(8)}${randomBytes(12).toString("hex")}`;
const TOKEN_B = `5550002:${"B".repeat(8)}${randomBytes(12).toString("hex")}`;
const LINE_SECRET = `line-secret-${randomBytes(8).toString("hex")}`;
const LINE_ACCESS = `line-access-${randomBytes(16).toString("hex")}`;
const MODEL_KEY = `sk-bravo-${randomBytes(12).toString("hex")}`;
const PUBLIC_URL = "https://switchboard.example.test";

type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;
const route = async (path: string) => (await import(resolve(path))) as Route;

/** An /api/v1 call as a script makes it (API token), through the route handler. */
const api = (file: string, method: string, url: string, params: Record<string, string> = {}, body?: unknown) =>
  callRoute(API_TOKEN, file, method, url, params, body);

/** What LINE posts: events signed with the channel secret (X-Line-Signature, HMAC-SHA256 of the raw body). */
function lineRequest(url: string, secret: string, events: unknown[]) {
  const body = JSON.stringify({ destination: "Ubotdest", events });
  const signature = createHmac("sha256", secret).update(body).digest("base64");
  return new Request(url, { method: "POST", headers: { "content-type": "application/json", "x-line-signature": signature }, body });
}
let lineSeq = 0;
const lineMessage = (text: string, userId = "Uline0001", mode = "active") => ({
  type: "message",
  mode,
  timestamp: Date.now(),
  webhookEventId: `01HBOTS${++lineSeq}`,
  deliveryContext: { isRedelivery: false },
  replyToken: `rt-bots-${lineSeq}`,
  source: { type: "user", userId },
  message: { type: "text", id: `${900_000 + lineSeq}`, text, quoteToken: `qt-${lineSeq}` },
});

describe.each(databases)("bots as records on $name", ({ name, open }) => {
  let telegram: FakeTelegram;
  let line: FakeLine;
  /** LINE's content host (LINE_DATA_API_ROOT), apart from its API host. */
  let lineData: FakeFiles;
  let llmA: FakeLlm;
  let llmB: FakeLlm;
  let testDb: TestDb;
  let t: TestApp;
  const ids = { a: 0, b: 0, line: 0, env: 0 };
  const secrets = { a: "", b: "" };

  async function postTo(botId: number, secret: string, o: UpdateOptions) {
    const handler = (await route("app/api/webhooks/telegram/[botId]/route.ts")).POST;
    const response = await handler(
      new Request(`http://localhost/api/webhooks/telegram/${botId}`, {
        method: "POST",
        headers: { "content-type": "application/json", [SECRET_HEADER]: secret },
        body: JSON.stringify(update(o)),
      }),
      { params: Promise.resolve({ botId: String(botId) }) },
    );
    return { status: response.status, body: (await response.json()) as any };
  }

  beforeAll(async () => {
    telegram = await startFakeTelegram();
    telegram.addBot(TOKEN_A, { id: 5550001, username: "alpha_support_bot", first_name: "Alpha Support" });
    telegram.addBot(TOKEN_B, { id: 5550002, username: "bravo_sales_bot", first_name: "Bravo Sales" });
    line = await startFakeLine();
    line.addChannel(LINE_ACCESS, { userId: "Ulinebot01", basicId: "@charlie", displayName: "Charlie LINE" });
    lineData = await startFakeFiles({ lineToken: LINE_ACCESS });
    // Each model says who it is, so an answer shows which one wrote it.
    llmA = await startFakeLlm(() => ({ reply: "from the deployment's model" }));
    llmB = await startFakeLlm(() => ({ reply: "from bravo's own model" }));
    testDb = await open();
    t = await startTestApp({
      db: testDb,
      telegram,
      llm: llmA,
      env: {
        SWITCHBOARD_API_TOKEN: API_TOKEN,
        LINE_API_ROOT: line.url,
        LINE_DATA_API_ROOT: lineData.url,
        // SQLite: no variable, the key file beside the database; PostgreSQL needs the variable.
        ...(name === "postgresql" ? { SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("hex") } : {}),
      },
    });
    installRouteApp(t.app, API_TOKEN);
  });
  afterAll(async () => {
    uninstallRouteApp();
    await t.settle();
    await t.stop();
    await testDb.close();
    await Promise.all([telegram.close(), line.close(), lineData.close(), llmA.close(), llmB.close()]);
  });

  it("refuses credentials the platform refuses, with its answer, and stores nothing", async () => {
    const before = await t.db.prisma.bot.count();
    const revoked = `5550009:${"Z".repeat(30)}`;
    telegram.revoke(revoked);
    const refused = await api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, { platform: "telegram", token: revoked });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("Telegram 401: Unauthorized");
    expect(JSON.stringify(refused.body)).not.toContain(revoked);
    const lineRefused = await api(
      "app/api/v1/bots/route.ts",
      "POST",
      "/api/v1/bots",
      {},
      { platform: "line", channelSecret: "s".repeat(32), channelAccessToken: "not-a-channel-token" },
    );
    expect(lineRefused.status).toBe(400);
    expect(lineRefused.body.error.message).toContain("LINE 401");
    expect(await t.db.prisma.bot.count()).toBe(before);
  });

  it("adds two Telegram bots and a LINE channel, checked with the platforms, tokens never returned", async () => {
    const a = await api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, { platform: "telegram", token: TOKEN_A });
    const b = await api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, { platform: "telegram", token: TOKEN_B, name: "Sales" });
    const l = await api(
      "app/api/v1/bots/route.ts",
      "POST",
      "/api/v1/bots",
      {},
      { platform: "line", channelSecret: LINE_SECRET, channelAccessToken: LINE_ACCESS },
    );
    expect([a.status, b.status, l.status]).toEqual([201, 201, 201]);
    expect(a.body.bot).toMatchObject({ platform: "telegram", source: "api", name: "Alpha Support", username: "alpha_support_bot" });
    expect(a.body.bot.tokenHint).toBe(TOKEN_A.slice(-4));
    expect(b.body.bot.name).toBe("Sales");
    expect(l.body.bot).toMatchObject({ platform: "line", name: "Charlie LINE", username: "@charlie" });
    ids.a = a.body.bot.id;
    ids.b = b.body.bot.id;
    ids.line = l.body.bot.id;
    const list = await api("app/api/v1/bots/route.ts", "GET", "/api/v1/bots");
    const text = JSON.stringify(list.body);
    for (const secret of [TOKEN_A, TOKEN_B, LINE_SECRET, LINE_ACCESS]) expect(text).not.toContain(secret);
    const env = list.body.bots.find((x: { source: string }) => x.source === "env");
    expect(env).toMatchObject({ platform: "telegram", webhookPath: "/api/webhooks/telegram" });
    ids.env = env.id;
    expect(list.body.bots.map((x: { id: number }) => x.id)).toEqual(expect.arrayContaining([ids.a, ids.b, ids.line]));
  });

  it("refuses a bot already added (its token again, another token of it, the environment's, a LINE channel again): 409 naming it, nothing stored", async () => {
    // The environment's row learns its id from getMe in the background.
    await expect.poll(async () => (await t.db.prisma.bot.findUniqueOrThrow({ where: { id: ids.env } })).platformBotId).toBe(String(BOT.id));
    const rows = await t.db.prisma.bot.count();
    const setWebhooks = telegram.callsOf("setWebhook").length;
    const lineCalls = line.calls.length;
    const add = (body: Record<string, string>) => api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, body);
    const again = await add({ platform: "telegram", token: TOKEN_A, name: "Alpha again" });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", details: { botId: ids.a } });
    expect(again.body.error.message).toContain(`"Alpha Support" is already added as bot ${ids.a}`);
    // A new token of the same bot (revoked and reissued at @BotFather): the same bot id.
    const reissued = `5550001:${"R".repeat(8)}${randomBytes(12).toString("hex")}`;
    telegram.addBot(reissued, { id: 5550001, username: "alpha_support_bot", first_name: "Alpha Support" });
    expect((await add({ platform: "telegram", token: reissued })).status).toBe(409);
    // The fake's getMe answers the environment's bot for a token it was not told about.
    const envToken = `${BOT.id}:${"E".repeat(8)}${randomBytes(12).toString("hex")}`;
    const env = await add({ platform: "telegram", token: envToken });
    expect(env.status).toBe(409);
    expect(env.body.error.message).toContain("configured by the environment");
    const lineAgain = await add({ platform: "line", channelSecret: `${LINE_SECRET}-2`, channelAccessToken: LINE_ACCESS });
    expect(lineAgain.status).toBe(409);
    expect(lineAgain.body.error.message).toContain(`"Charlie LINE" is already added as bot ${ids.line}`);
    expect(await t.db.prisma.bot.count()).toBe(rows);
    expect(telegram.callsOf("setWebhook").length).toBe(setWebhooks);
    expect(line.calls.slice(lineCalls).map((c) => c.path)).toEqual(["/v2/bot/info"]);
  });

  it("two adds of one bot at once (a double submit, two instances) make one row: the other is the 409", async () => {
    const rows = await t.db.prisma.bot.count();
    const twin = `5550009:${"T".repeat(8)}${randomBytes(12).toString("hex")}`;
    telegram.addBot(twin, { id: 5550009, username: "twin_bot", first_name: "Twin" });
    const add = () => api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, { platform: "telegram", token: twin });
    const results = await Promise.all([add(), add(), add()]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const added = results.find((r) => r.status === 201)!.body.bot;
    for (const refused of results.filter((r) => r.status === 409))
      expect(refused.body.error).toMatchObject({ code: "conflict", details: { botId: added.id } });
    expect(await t.db.prisma.bot.count()).toBe(rows + 1);
    await api("app/api/v1/bots/[id]/route.ts", "DELETE", `/api/v1/bots/${added.id}`, { id: String(added.id) });
  });

  it("registers each webhook with setWebhook: the bot's URL, its own secret, the update kinds the pipeline handles", async () => {
    for (const [key, token] of [
      ["a", TOKEN_A],
      ["b", TOKEN_B],
    ] as const) {
      const res = await api(
        "app/api/v1/bots/[id]/webhook/route.ts",
        "POST",
        `/api/v1/bots/${ids[key]}/webhook`,
        { id: String(ids[key]) },
        { publicUrl: PUBLIC_URL },
      );
      expect(res.status).toBe(200);
      expect(res.body.platform).toBe("Webhook was set");
      expect(res.body.bot.webhookUrl).toBe(`${PUBLIC_URL}/api/webhooks/telegram/${ids[key]}`);
      const call = telegram.callsOf("setWebhook").find((c) => c.token === token)!;
      expect(call.body).toMatchObject({
        url: `${PUBLIC_URL}/api/webhooks/telegram/${ids[key]}`,
        allowed_updates: ["message", "edited_message", "channel_post", "edited_channel_post", "my_chat_member"],
      });
      expect(call.body.secret_token).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
      secrets[key] = call.body.secret_token;
    }
    expect(secrets.a).not.toBe(secrets.b);
    const res = await api(
      "app/api/v1/bots/[id]/webhook/route.ts",
      "POST",
      `/api/v1/bots/${ids.line}/webhook`,
      { id: String(ids.line) },
      { publicUrl: PUBLIC_URL },
    );
    expect(res.status).toBe(200);
    const endpoint = line.calls.find((c) => c.path === "/v2/bot/channel/webhook/endpoint")!;
    expect(endpoint).toMatchObject({
      method: "PUT",
      token: LINE_ACCESS,
      body: { endpoint: `${PUBLIC_URL}/api/webhooks/line/${ids.line}` },
    });
  });

  it("routes each webhook to its own bot's conversations and answers with that bot's token", async () => {
    const user = { id: 880001, first_name: "Dana" };
    expect(
      (await postTo(ids.a, secrets.a, { from: user, chat: { id: user.id, type: "private" }, text: "hello alpha", updateId: 1 })).status,
    ).toBe(200);
    // The same update and message ids at another bot are that bot's own (counted per bot).
    expect(
      (await postTo(ids.b, secrets.b, { from: user, chat: { id: user.id, type: "private" }, text: "hello bravo", updateId: 1 })).status,
    ).toBe(200);
    await t.settle();
    const conversations = await t.db.prisma.conversation.findMany({ where: { platformChatId: String(user.id) }, orderBy: { id: "asc" } });
    expect(conversations.map((c) => c.botId)).toEqual([ids.a, ids.b]);
    const sends = telegram.sends().filter((c) => String(c.body.chat_id) === String(user.id));
    expect(sends.map((s) => s.token).sort()).toEqual([TOKEN_A, TOKEN_B].sort());
    // ?botId= filters the list.
    const listed = await api("app/api/v1/conversations/route.ts", "GET", `/api/v1/conversations?botId=${ids.b}`);
    expect(listed.status).toBe(200);
    expect(listed.body.conversations.map((c: { id: number }) => c.id)).toEqual([conversations[1].id]);
    expect(listed.body.conversations[0].botId).toBe(ids.b);
    // ?botId= on search and the queue: that bot's messages and answers only.
    const found = await api("app/api/v1/search/route.ts", "GET", `/api/v1/search?q=hello&botId=${ids.a}`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((r: { conversationId: number }) => r.conversationId)).toEqual([conversations[0].id]);
    const queue = await api("app/api/v1/queue/route.ts", "GET", `/api/v1/queue?botId=${ids.a}`);
    expect(queue.status).toBe(200);
    expect(queue.body.timeToAnswer.reduce((n: number, m: { n: number }) => n + m.n, 0)).toBe(1);
  });

  it("refuses a webhook carrying another bot's secret (401, nothing stored); an unknown bot is 404", async () => {
    const before = await t.db.prisma.message.count();
    expect((await postTo(ids.a, secrets.b, { text: "wrong secret" })).status).toBe(401);
    expect((await postTo(999_999, secrets.a, { text: "no such bot" })).status).toBe(404);
    expect(await t.db.prisma.message.count()).toBe(before);
  });

  it("disabling a Telegram bot deletes its webhook keeping its updates at Telegram; enabling sets the stored one again", async () => {
    const patch = (body: Record<string, string>) =>
      api("app/api/v1/bots/[id]/route.ts", "PATCH", `/api/v1/bots/${ids.a}`, { id: String(ids.a) }, body);
    const from = telegram.calls.length;
    const callsSince = (method: string) => telegram.calls.slice(from).filter((c) => c.method === method && c.token === TOKEN_A);
    const disabled = await patch({ status: "disabled" });
    expect(disabled.status).toBe(200);
    expect(disabled.body.bot).toMatchObject({ status: "disabled", webhookUrl: `${PUBLIC_URL}/api/webhooks/telegram/${ids.a}` });
    expect(callsSince("deleteWebhook").length).toBe(1);
    expect(callsSince("deleteWebhook")[0].body).not.toHaveProperty("drop_pending_updates");
    expect((await postTo(ids.a, secrets.a, { text: "while disabled" })).status).toBe(404);
    // Registering now would have Telegram deliver what it holds to that 404.
    const register = await api(
      "app/api/v1/bots/[id]/webhook/route.ts",
      "POST",
      `/api/v1/bots/${ids.a}/webhook`,
      { id: String(ids.a) },
      { publicUrl: PUBLIC_URL },
    );
    expect(register.status).toBe(409);
    expect(callsSince("setWebhook")).toEqual([]);
    const enabled = await patch({ status: "active" });
    expect(enabled.status).toBe(200);
    expect(enabled.body.bot.status).toBe("active");
    expect(callsSince("setWebhook").map((c) => c.body)).toEqual([
      {
        url: `${PUBLIC_URL}/api/webhooks/telegram/${ids.a}`,
        secret_token: secrets.a,
        allowed_updates: ["message", "edited_message", "channel_post", "edited_channel_post", "my_chat_member"],
      },
    ]);
    expect((await postTo(ids.a, secrets.a, { text: "enabled again" })).status).toBe(200);
  });

  it("a failed deleteWebhook still disables the bot (with a warning); a failed setWebhook is a 502 that leaves it disabled", async () => {
    const patch = (body: Record<string, string>) =>
      api("app/api/v1/bots/[id]/route.ts", "PATCH", `/api/v1/bots/${ids.a}`, { id: String(ids.a) }, body);
    const stored = () => t.db.prisma.bot.findUniqueOrThrow({ where: { id: ids.a } });
    const refusal = (method: string) => ({
      method,
      status: 500,
      body: { ok: false, error_code: 500, description: "Internal Server Error: try again" },
    });
    // Disabling is the operator's way to stop a bot: it never waits on Telegram (a revoked token, an outage).
    telegram.failNext(refusal("deleteWebhook"));
    const disabledAnyway = await patch({ status: "disabled", name: "Alpha renamed" });
    expect(disabledAnyway.status).toBe(200);
    expect(disabledAnyway.body.bot).toMatchObject({ status: "disabled", name: "Alpha renamed" });
    expect(disabledAnyway.body.warning).toContain("deleteWebhook failed (Telegram 500");
    expect(await stored()).toMatchObject({ status: "disabled", name: "Alpha renamed" });
    expect((await postTo(ids.a, secrets.a, { text: "not answered" })).status).toBe(404);
    telegram.failNext(refusal("setWebhook"));
    const notEnabled = await patch({ status: "active" });
    expect(notEnabled.status).toBe(502);
    expect(notEnabled.body.error.message).toContain("setWebhook failed, the bot stays disabled: Telegram 500");
    expect((await stored()).status).toBe("disabled");
    expect((await patch({ status: "active" })).status).toBe(200);
    expect((await stored()).status).toBe("active");
    await t.settle();
  });

  it("gives each bot its own instructions and model: they reach only that bot's prompts", async () => {
    const patched = await api(
      "app/api/v1/bots/[id]/route.ts",
      "PATCH",
      `/api/v1/bots/${ids.b}`,
      { id: String(ids.b) },
      {
        instructions: "You are BRAVO-SALES, you sell things.",
        model: { provider: "openai-compatible", model: "bravo-model", baseUrl: llmB.baseUrl, apiKey: MODEL_KEY },
        settings: { agentName: "sales" },
      },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.bot.model).toEqual({ provider: "openai-compatible", model: "bravo-model", baseUrl: llmB.baseUrl, hasApiKey: true });
    expect(JSON.stringify(patched.body)).not.toContain(MODEL_KEY);
    // The same endpoint again without a key keeps the stored one; another address never gets it.
    const patch = (model: Record<string, string>) =>
      api("app/api/v1/bots/[id]/route.ts", "PATCH", `/api/v1/bots/${ids.b}`, { id: String(ids.b) }, { model });
    const kept = await patch({ provider: "openai-compatible", model: "bravo-model-2", baseUrl: llmB.baseUrl });
    expect(kept.body.bot.model.hasApiKey).toBe(true);
    const moved = await patch({ provider: "openai-compatible", model: "bravo-model", baseUrl: "http://127.0.0.1:9/v1" });
    expect(moved.body.bot.model.hasApiKey).toBe(false);
    await patch({ provider: "openai-compatible", model: "bravo-model", baseUrl: llmB.baseUrl, apiKey: MODEL_KEY });
    llmA.requests.length = 0;
    llmB.requests.length = 0;
    const user = { id: 880002, first_name: "Eve" };
    await postTo(ids.a, secrets.a, { from: user, chat: { id: user.id, type: "private" }, text: "question for alpha" });
    await postTo(ids.b, secrets.b, { from: user, chat: { id: user.id, type: "private" }, text: "question for bravo" });
    await t.settle();
    const systemOf = (r: FakeLlm["requests"][number]) => String(r.messages.find((m) => m.role === "system")?.content ?? "");
    expect(llmB.requests.length).toBeGreaterThan(0);
    expect(llmB.requests.every((r) => r.model === "bravo-model" && systemOf(r).includes("BRAVO-SALES"))).toBe(true);
    expect(llmA.requests.length).toBeGreaterThan(0);
    expect(llmA.requests.some((r) => systemOf(r).includes("BRAVO-SALES"))).toBe(false);
    // The model is told the platform, not the deployment's name for the bot's adapter.
    expect(systemOf(llmB.requests[0])).toContain("a private telegram chat");
    expect(JSON.stringify(llmB.requests[0].messages)).not.toContain(`telegram-${ids.b}`);
    const sends = telegram.sends().filter((c) => String(c.body.chat_id) === String(user.id));
    expect(sends.find((s) => s.token === TOKEN_B)?.body.text).toBe("from bravo's own model");
    expect(sends.find((s) => s.token === TOKEN_A)?.body.text).toBe("from the deployment's model");
    // The prompt inspector's record says which model answered, and the bot's agent address.
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { botId: ids.b, platformChatId: String(user.id) } });
    const turn = await t.db.prisma.turn.findFirstOrThrow({ where: { conversationId: conversation.id } });
    expect(turn.model).toBe("openai-compatible:bravo-model");
    const inbound = await t.db.prisma.envelope.findFirstOrThrow({
      where: { conversationId: conversation.id, from: { startsWith: "channel:" } },
    });
    expect(inbound).toMatchObject({ from: `channel:telegram-${ids.b}:${user.id}`, to: "agent:sales" });

    // OpenAI at an address an admin typed in, with no key of its own: the SDK's OPENAI_API_KEY never goes there.
    process.env.OPENAI_API_KEY = "sk-env-deployment-secret";
    try {
      await patch({ provider: "openai", model: "bravo-model", baseUrl: llmB.baseUrl });
      llmB.authorizations.length = 0;
      await postTo(ids.b, secrets.b, { from: user, chat: { id: user.id, type: "private" }, text: "and again" });
      await t.settle();
      expect(llmB.authorizations.length).toBeGreaterThan(0);
      expect(JSON.stringify(llmB.authorizations)).not.toContain("sk-env-deployment-secret");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("a user's handoff command on a bot with its own agent name is requested by that bot's agent, not the global one", async () => {
    // Bot B's agent is "sales" (the test above); the global agent name stays "main".
    const user = { id: 880007, first_name: "Hugo" };
    await postTo(ids.b, secrets.b, { from: user, chat: { id: user.id, type: "private" }, text: "/human" });
    await t.settle();
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { botId: ids.b, platformChatId: String(user.id) } });
    const envelopes = await t.db.prisma.envelope.findMany({ where: { conversationId: conversation.id }, orderBy: { id: "asc" } });
    // The user's message went to the bot's own agent, and that agent asks for the human.
    expect(envelopes.find((e) => e.from.startsWith("channel:"))).toMatchObject({ to: "agent:sales" });
    const request = envelopes.find(
      (e) => (e.metadata as { handoff?: { action?: string } } | null)?.handoff?.action === "request" && e.from.startsWith("agent:"),
    );
    expect(request?.from).toBe("agent:sales");
    expect(conversation.handoffState).toBe("waiting");
  });

  it("a revoked token fails that bot's sends, visibly, while the other bot keeps answering", async () => {
    telegram.revoke(TOKEN_A);
    const user = { id: 880003, first_name: "Finn" };
    await postTo(ids.a, secrets.a, { from: user, chat: { id: user.id, type: "private" }, text: "anyone there, alpha?" });
    await postTo(ids.b, secrets.b, { from: user, chat: { id: user.id, type: "private" }, text: "anyone there, bravo?" });
    await t.settle();
    const failed = await t.db.prisma.conversation.findFirstOrThrow({ where: { botId: ids.a, platformChatId: String(user.id) } });
    const envelopes = await t.db.prisma.envelope.findMany({ where: { conversationId: failed.id } });
    expect(envelopes.some((e) => e.status === "failed" && /Telegram 401: Unauthorized/.test(e.lastDeliveryError ?? ""))).toBe(true);
    const sends = telegram.sends().filter((c) => String(c.body.chat_id) === String(user.id));
    expect(sends.find((s) => s.token === TOKEN_B)?.body.text).toBe("from bravo's own model");
  });

  it("routes LINE events to the LINE channel's conversations (its secret signs; another's is 401) and answers with its token", async () => {
    const handler = (await route("app/api/webhooks/line/[botId]/route.ts")).POST;
    const url = `http://localhost/api/webhooks/line/${ids.line}`;
    const params = { params: Promise.resolve({ botId: String(ids.line) }) };
    expect((await handler(lineRequest(url, "another-channel-secret", [lineMessage("forged")]), params)).status).toBe(401);
    const ok = await handler(lineRequest(url, LINE_SECRET, [lineMessage("hello charlie")]), params);
    expect(ok.status).toBe(200);
    // Standby: another module holds the chat; stored for the record, never answered.
    const standby = await handler(lineRequest(url, LINE_SECRET, [lineMessage("while in standby", "Uline0002", "standby")]), params);
    expect(standby.status).toBe(200);
    await t.settle();
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: "Uline0001" } });
    expect(conversation).toMatchObject({ botId: ids.line, channel: `line-${ids.line}` });
    const sends = line.sends();
    expect(sends.length).toBe(1);
    expect(sends[0]).toMatchObject({ token: LINE_ACCESS });
    const stored = await t.db.prisma.message.findFirst({ where: { text: "while in standby" } });
    expect(stored).not.toBeNull();
  });

  it("a LINE channel added as a record fetches its users' images from LINE_DATA_API_ROOT with its own token, as the environment's does", async () => {
    const handler = (await route("app/api/webhooks/line/[botId]/route.ts")).POST;
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 160, b: 90 } } })
      .jpeg()
      .toBuffer();
    lineData.lineContent("586000000000000001", { bytes, contentType: "image/jpeg" });
    // An image message as LINE sends it: the bytes stay at LINE's content host.
    const image = {
      ...lineMessage("", "Uline0003"),
      message: { id: "586000000000000001", type: "image", quoteToken: "qt-image", contentProvider: { type: "line" } },
    };
    const url = `http://localhost/api/webhooks/line/${ids.line}`;
    const ok = await handler(lineRequest(url, LINE_SECRET, [image]), { params: Promise.resolve({ botId: String(ids.line) }) });
    expect(ok.status).toBe(200);
    t.app.media.wake();
    await t.app.media.idle(5_000);
    const attachment = await t.db.prisma.attachment.findFirstOrThrow({ where: { source: "line", sourceRef: "586000000000000001" } });
    expect(attachment).toMatchObject({ status: "stored", mimeType: "image/jpeg", width: 64, height: 48, error: null });
    expect(lineData.lineStats("586000000000000001")).toMatchObject({ requests: 1, bytesSent: bytes.byteLength });
    expect(lineData.lineStats("586000000000000001").headers[0]!.authorization).toBe(`Bearer ${LINE_ACCESS}`);
    await t.settle();
  });

  it("the environment's bot keeps working at the old URL, its conversations given to its row", async () => {
    const res = await t.post(update({ from: { id: 880004, first_name: "Gus" }, chat: { id: 880004, type: "private" }, text: "old url" }));
    expect(res.status).toBe(200);
    await t.settle();
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: "880004" } });
    expect(conversation).toMatchObject({ channel: "telegram", botId: ids.env });
    expect(telegram.sends().find((s) => String(s.body.chat_id) === "880004")?.token).toBe("123456:TEST-TOKEN");
  });

  it("removing a bot deletes its webhook at Telegram, its webhook answers 404, and its history stays readable", async () => {
    const removed = await api("app/api/v1/bots/[id]/route.ts", "DELETE", `/api/v1/bots/${ids.b}`, { id: String(ids.b) });
    expect(removed.status).toBe(200);
    expect(telegram.callsOf("deleteWebhook").map((c) => c.token)).toContain(TOKEN_B);
    expect((await postTo(ids.b, secrets.b, { text: "after removal" })).status).toBe(404);
    expect((await api("app/api/v1/bots/[id]/route.ts", "GET", `/api/v1/bots/${ids.b}`, { id: String(ids.b) })).status).toBe(404);
    const archived = await api("app/api/v1/conversations/route.ts", "GET", `/api/v1/conversations?botId=${ids.b}`);
    expect(archived.body.conversations.length).toBeGreaterThan(0);
    // Nothing can be sent there any more: a 409 that says why, and no envelope written.
    const envelopes = await t.db.prisma.envelope.count();
    const conversationId = String(archived.body.conversations[0].id);
    const sent = await api(
      "app/api/v1/conversations/[id]/messages/route.ts",
      "POST",
      `/api/v1/conversations/${conversationId}/messages`,
      { id: conversationId },
      { text: "hello?" },
    );
    expect(sent.status).toBe(409);
    expect(sent.body.error.message).toContain("bot is removed or disabled");
    expect(await t.db.prisma.envelope.count()).toBe(envelopes);
    const listed = await api("app/api/v1/bots/route.ts", "GET", "/api/v1/bots?removed=true");
    expect(listed.body.bots.find((x: { id: number }) => x.id === ids.b).status).toBe("removed");
    // Removed, its identity is free again.
    const readded = await api("app/api/v1/bots/route.ts", "POST", "/api/v1/bots", {}, { platform: "telegram", token: TOKEN_B });
    expect(readded.status).toBe(201);
    const id = String(readded.body.bot.id);
    expect((await api("app/api/v1/bots/[id]/route.ts", "DELETE", `/api/v1/bots/${id}?erase=true`, { id })).status).toBe(200);
  });

  it("a disabled LINE channel's webhook answers 404 (LINE holds nothing: nothing is asked of it); enabled again, it answers", async () => {
    const lineCalls = line.calls.length;
    const disabled = await api(
      "app/api/v1/bots/[id]/route.ts",
      "PATCH",
      `/api/v1/bots/${ids.line}`,
      { id: String(ids.line) },
      { status: "disabled" },
    );
    expect(disabled.body.bot.status).toBe("disabled");
    const handler = (await route("app/api/webhooks/line/[botId]/route.ts")).POST;
    const url = `http://localhost/api/webhooks/line/${ids.line}`;
    const params = () => ({ params: Promise.resolve({ botId: String(ids.line) }) });
    expect((await handler(lineRequest(url, LINE_SECRET, [lineMessage("while disabled")]), params())).status).toBe(404);
    await api("app/api/v1/bots/[id]/route.ts", "PATCH", `/api/v1/bots/${ids.line}`, { id: String(ids.line) }, { status: "active" });
    expect(line.calls.length).toBe(lineCalls);
    expect((await handler(lineRequest(url, LINE_SECRET, [lineMessage("enabled again")]), params())).status).toBe(200);
  });

  it("erasing a bot deletes its conversations; a revoked token's deleteWebhook answer is reported, the bot removed anyway", async () => {
    const before = await t.db.prisma.conversation.count({ where: { botId: ids.a } });
    expect(before).toBeGreaterThan(0);
    const erased = await api("app/api/v1/bots/[id]/route.ts", "DELETE", `/api/v1/bots/${ids.a}?erase=true`, { id: String(ids.a) });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ ok: true, erased: true, platform: "Telegram 401: Unauthorized" });
    expect(await t.db.prisma.conversation.count({ where: { botId: ids.a } })).toBe(0);
    expect(await t.db.prisma.bot.findUnique({ where: { id: ids.a } })).toBeNull();
  });

  it("a status is stored only over the row the change read (toggles in between, even back to the same status, refuse it)", async () => {
    const read = await t.db.prisma.bot.findFirstOrThrow({ where: { source: "api", status: { in: ["active", "disabled"] } } });
    const other = read.status === "active" ? "disabled" : "active";
    const noLog = { entries: [], changedBy: "admin" };
    // Two other changes came meanwhile and put the status back where it was (disabled → active → disabled).
    await new Promise((r) => setTimeout(r, 5));
    await t.db.prisma.bot.update({ where: { id: read.id }, data: { status: other } });
    await new Promise((r) => setTimeout(r, 5));
    await t.db.prisma.bot.update({ where: { id: read.id }, data: { status: read.status } });
    expect(await writeBotChange(t.db, read.id, { status: other }, noLog, read)).toBe(false);
    expect((await t.db.prisma.bot.findUniqueOrThrow({ where: { id: read.id } })).status).toBe(read.status);
    const fresh = await t.db.prisma.bot.findUniqueOrThrow({ where: { id: read.id } });
    expect(await writeBotChange(t.db, read.id, { name: fresh.name }, noLog, fresh)).toBe(true);
  });

  it("the environment's LINE channel cannot be added again through the API: its identity is learnt when it matters", async () => {
    // The environment's LINE channel (its row as the server makes it), and another access token of the same channel.
    const envAccess = `line-env-${randomBytes(8).toString("hex")}`;
    const reissued = `line-env-2-${randomBytes(8).toString("hex")}`;
    const channel = { userId: "Ulineenv01", basicId: "@delta", displayName: "Delta LINE" };
    line.addChannel(envAccess, channel);
    line.addChannel(reissued, channel);
    const envRow = await ensureEnvBot(t.db, { platform: "line", name: "LINE (environment)", username: null, status: "active" });
    expect(envRow.platformBotId).toBeNull();
    const body = { platform: "line" as const, channelSecret: `${LINE_SECRET}-env`, channelAccessToken: reissued };
    const refused = await createBot({ ...t.app.bots, envLineAccessToken: envAccess }, body).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "conflict", details: { botId: envRow.id } });
    expect((refused as Error).message).toContain("configured by the environment");
    expect(await t.db.prisma.bot.count({ where: { platformBotId: "Ulineenv01" } })).toBe(1);
    // Out of the way of the tests after this one.
    await t.db.prisma.bot.update({ where: { id: envRow.id }, data: { status: "disabled" } });
  });

  it.runIf(name === "sqlite")("keeps no token, secret or model key in the database file (key file 0600 beside it)", async () => {
    await t.settle();
    const file = sqlitePath(testDb.url);
    const bytes = Buffer.concat([file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f)));
    expect(bytes.length).toBeGreaterThan(0);
    // The bots were added (the earlier tests): their rows are in the file, sealed.
    expect(await t.db.prisma.bot.count({ where: { credentials: { not: null } } })).toBeGreaterThan(0);
    expect(secrets.a.length).toBeGreaterThan(0);
    for (const secret of [TOKEN_A, TOKEN_B, LINE_SECRET, LINE_ACCESS, MODEL_KEY, secrets.a]) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(secret.slice(8)))).toBe(false);
    }
    const keyFile = join(dirname(file), "secret.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });
});
