import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { simulateUpdate } from "@/lib/api/simulator/simulate-update";
import { startTestApp } from "../helpers/app";
import { setAgentEnabled } from "@/lib/db/conversations";
import { conversationStats } from "@/lib/db/stats";
import { update } from "../fixtures/telegram";
import { useHarness } from "../helpers/harness";
import { getConversationTimeline, markRead } from "@/lib/pipeline/timeline";
import { housekeeping } from "@/lib/server/housekeeping";
import { checkDatabase } from "@/lib/db/health";

describe("operator tools", () => {
  const h = useHarness();

  it("reading a timeline changes nothing; marking it read is an explicit POST", async () => {
    await h.t.post(update({ text: "unread" }));
    await h.t.settle();
    const { id } = await h.t.db.prisma.conversation.findFirstOrThrow();
    await getConversationTimeline(h.t.db, id, { take: 50 });
    expect((await h.t.db.prisma.conversation.findUniqueOrThrow({ where: { id } })).lastReadAt).toBeNull();
    await markRead(h.t.db, id);
    expect((await h.t.db.prisma.conversation.findUniqueOrThrow({ where: { id } })).lastReadAt).not.toBeNull();
  });

  it("pausing the agent in a conversation stores messages but answers none; resuming answers again", async () => {
    await h.t.post(update({ text: "one" }));
    await h.t.settle();
    const conversation = await h.t.db.prisma.conversation.findFirstOrThrow();
    await setAgentEnabled(h.t.db, conversation.id, false);
    await h.t.post(update({ text: "two" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(1);
    const paused = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { text: "two" } });
    expect((paused.metadata as Record<string, unknown>).skipped).toBe("agent paused in this conversation");
    await setAgentEnabled(h.t.db, conversation.id, true);
    await h.t.post(update({ text: "three" }));
    await h.t.settle();
    expect(h.telegram.sends()).toHaveLength(2);
  });

  it("stats count messages per hour and list turn latencies", async () => {
    // One answer each: two messages pending together are one burst, answered once.
    await h.t.post(update({ text: "a" }));
    await h.t.settle();
    await h.t.post(update({ text: "b" }));
    await h.t.settle();
    const conversation = await h.t.db.prisma.conversation.findFirstOrThrow();
    const stats = await conversationStats(h.t.db, conversation.id, new Date());
    expect(stats.activity).toHaveLength(48);
    expect(stats.activity.at(-1)).toMatchObject({ inbound: 2, outbound: 2 });
    expect(stats.latency).toHaveLength(2);
    expect(stats.latencyP50).toBeGreaterThanOrEqual(0);
  });

  it("npm run telegram:webhook registers the webhook with the secret, then reports and deletes it", async () => {
    // Async: the fake Bot API answers from this very process.
    const run = promisify(execFile);
    const env = { ...process.env, TELEGRAM_BOT_TOKEN: "1:abc", TELEGRAM_API_ROOT: h.telegram.url, TELEGRAM_WEBHOOK_SECRET: "s3cret_token" };
    const script = (...args: string[]) => run(process.execPath, ["scripts/telegram-webhook.mjs", ...args], { env, timeout: 20_000 });
    expect((await script("--url", "https://example.com/api/webhooks/telegram")).stdout).toContain("webhook set");
    const set = h.telegram.calls.find((c) => c.method === "setWebhook")!;
    expect(set.body).toMatchObject({
      url: "https://example.com/api/webhooks/telegram",
      secret_token: "s3cret_token",
      allowed_updates: ["message", "edited_message"],
      max_connections: 40,
    });
    await script("--info");
    expect(h.telegram.calls.some((c) => c.method === "getWebhookInfo")).toBe(true);
    await script("--delete");
    expect(h.telegram.calls.some((c) => c.method === "deleteWebhook")).toBe(true);
    await expect(script("--url", "http://insecure.example")).rejects.toThrow(/https/);
  });
});

describe("the sandbox simulator", () => {
  const h = useHarness();
  const input = { chat: { type: "private" as const, id: 77 }, user: { id: 77, firstName: "Sim" }, text: "hello" };

  it("is refused while a real bot token is configured, and stores nothing", async () => {
    expect(h.t.app.telegram.mode).toBe("live");
    await expect(simulateUpdate(h.t.app, input)).rejects.toMatchObject({ code: "forbidden" });
    expect(await h.t.db.prisma.message.count()).toBe(0);
  });

  it("in the sandbox posts a real update through the webhook", async () => {
    const sandbox = await startTestApp({ db: h.testDb, model: null });
    try {
      const response = await simulateUpdate(sandbox.app, input);
      expect(response.status).toBe(200);
      expect((await h.t.db.prisma.message.findFirstOrThrow()).text).toBe("hello");
    } finally {
      await sandbox.stop();
    }
  });
});

describe("housekeeping and health", () => {
  const h = useHarness();

  it("expired operator sessions are purged by the worker's housekeeping", async () => {
    const operator = await h.t.db.prisma.operator.create({ data: { name: "ops", passwordHash: "scrypt$x$y" } });
    const now = new Date();
    await h.t.db.prisma.operatorSession.create({
      data: { operatorId: operator.id, tokenHash: "old", csrfToken: "c", expiresAt: new Date(now.getTime() - 1000) },
    });
    await h.t.db.prisma.operatorSession.create({
      data: { operatorId: operator.id, tokenHash: "live", csrfToken: "c", expiresAt: new Date(now.getTime() + 86_400_000) },
    });
    await housekeeping(h.t.app.turnDeps, 10_000, new Date(now.getTime() + 120_000));
    expect((await h.t.db.prisma.operatorSession.findMany()).map((s) => s.tokenHash)).toEqual(["live"]);
  });

  it("health never shows a raw database error", async () => {
    const broken = { $queryRawUnsafe: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432 user "app" password …')) };
    const result = await checkDatabase(broken as never, "postgres://app@10.0.0.5/db");
    expect(result).toEqual({ ok: false, provider: "postgresql", error: "unreachable (see the server log)" });
  });
});
