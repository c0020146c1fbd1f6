import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTelegramChannel } from "@/lib/channels/telegram/adapter";
import { describeHealth } from "@/lib/server/health";
import { update } from "../fixtures/telegram";
import { startTestApp, SECRET } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { SECRET_HEADER } from "@/lib/channels/telegram/webhook";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

/** A Bot API that accepts connections and never answers (the outage that hung the server). */
async function blackHole() {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the server keeps serving while the Bot API is unreachable", () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let telegram: FakeTelegram;
  let testDb: TestDb;
  beforeAll(async () => {
    hole = await blackHole();
    telegram = await startFakeTelegram();
  });
  afterAll(async () => {
    await hole.close();
    await telegram.close();
  });
  afterEach(async () => testDb?.close());

  it("the app starts at once, health says degraded, and the webhook answers 503 without waiting", async () => {
    testDb = await sqliteTestDb();
    const started = Date.now();
    const { createApp } = await import("@/lib/server/wiring");
    const { parseEnv } = await import("@/lib/env");
    const env = parseEnv({
      NODE_ENV: "test",
      DATABASE_URL: testDb.url,
      TELEGRAM_BOT_TOKEN: "123456:HANGING-TOKEN",
      TELEGRAM_API_ROOT: hole.url,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
    });
    const app = await createApp(env, testDb.db);
    try {
      const health = await describeHealth(app);
      expect(health).toMatchObject({
        status: "degraded",
        database: { ok: true },
        channels: { telegram: { ok: false, state: "connecting" } },
      });
      const response = await receiveWebhook(
        app.inbound,
        "telegram",
        new Request("http://localhost/api/webhooks/telegram", {
          method: "POST",
          headers: { "content-type": "application/json", [SECRET_HEADER]: SECRET },
          body: JSON.stringify(update({ text: "hi" })),
        }),
      );
      expect(response.status).toBe(503);
      // Nothing was stored: Telegram delivers the update again.
      expect(await testDb.db.prisma.message.count()).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await app.worker.stop();
    }
  });

  it("getMe gives up after bounded retries and starts again on the next demand", async () => {
    const channel = createTelegramChannel({
      token: "1:T",
      apiRoot: "http://127.0.0.1:9",
      sandboxUsername: "x",
      identityAttempts: 3,
      identityBackoffMs: () => 10,
    });
    await expect(channel.identity()).rejects.toThrow(/getMe failed after 3 attempts/);
    expect(channel.identityState()).toMatchObject({ state: "failed", attempts: 3 });
    // The token never appears in the reason.
    expect(JSON.stringify(channel.identityState())).not.toContain("1:T");
  });

  it("once the Bot API answers, the webhook stores updates", async () => {
    testDb = await sqliteTestDb();
    const t = await startTestApp({ db: testDb, telegram, model: null });
    try {
      expect(t.app.telegram.identityState().state).toBe("ready");
      expect((await t.post(update({ text: "after the outage" }))).status).toBe(200);
      expect((await describeHealth(t.app)).status).toBe("ok");
    } finally {
      await t.stop();
    }
  });
});
