import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyVariant } from "@/lib/replay/apply";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";
import { callRoute } from "../helpers/route-call";

const API_TOKEN = "change-log-api-token-0123456789";
const MODEL_KEY = "sk-change-log-secret-0123456789";

/** An /api/v1 call as a script makes it (the API token, whose operator is "api"), through the route handler. */
const api = (file: string, method: string, url: string, params: Record<string, string> = {}, body?: unknown) =>
  callRoute(API_TOKEN, file, method, url, params, body);

type Change = { key: string; oldValue: unknown; newValue: unknown; changedBy: string; bot: { id: number; name: string | null } | null };
const changeLog = async () => (await api("app/api/v1/settings/route.ts", "GET", "/api/v1/settings")).body.changes as Change[];

describe.each(databases)("the settings change log on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;
  let bot: { id: number; name: string };

  beforeAll(async () => {
    telegram = await startFakeTelegram();
    testDb = await open();
    t = await startTestApp({ db: testDb, telegram, model: null, env: { SWITCHBOARD_API_TOKEN: API_TOKEN } });
    installRouteApp(t.app, API_TOKEN);
    // The environment's bot: its own settings change like any bot's, without a platform call.
    bot = await t.db.prisma.bot.findUniqueOrThrow({ where: { adapter: "telegram" }, select: { id: true, name: true } });
  });
  afterAll(async () => {
    uninstallRouteApp();
    await t.settle();
    await t.stop();
    await testDb.close();
    await telegram.close();
  });

  const patchBot = (body: unknown) => api("app/api/v1/bots/[id]/route.ts", "PATCH", `/api/v1/bots/${bot.id}`, { id: String(bot.id) }, body);

  it("a bot's own settings, instructions and model are logged with the bot, who and from what to what; the key never", async () => {
    const changed = await patchBot({
      instructions: "Answer in French.",
      settings: { recencyWindow: 20, groupAnswerMode: "all" },
      model: { provider: "openai", model: "gpt-4o-mini", apiKey: MODEL_KEY },
    });
    expect(changed.status).toBe(200);
    const log = await changeLog();
    const ofBot = log.filter((c) => c.bot?.id === bot.id);
    expect(ofBot.map((c) => c.key).sort()).toEqual(["agentInstructions", "groupAnswerMode", "model", "recencyWindow"]);
    expect(ofBot.every((c) => c.changedBy === "api" && c.bot?.name === bot.name)).toBe(true);
    expect(ofBot.find((c) => c.key === "recencyWindow")).toMatchObject({ oldValue: null, newValue: 20 });
    expect(ofBot.find((c) => c.key === "agentInstructions")).toMatchObject({ oldValue: null, newValue: "Answer in French." });
    expect(ofBot.find((c) => c.key === "model")).toMatchObject({
      oldValue: null,
      newValue: { provider: "openai", model: "gpt-4o-mini", apiKey: "new" },
    });
    expect(JSON.stringify(log)).not.toContain(MODEL_KEY);
    expect(JSON.stringify(await t.db.prisma.settingChange.findMany())).not.toContain(MODEL_KEY);
  });

  it("putting one override back to inherit logs that key alone, and the same values again log nothing", async () => {
    const before = await t.db.prisma.settingChange.count();
    expect((await patchBot({ settings: { groupAnswerMode: "all" } })).status).toBe(200);
    const [newest, ...rest] = (await changeLog()).slice(0, (await t.db.prisma.settingChange.count()) - before);
    expect(rest).toEqual([]);
    expect(newest).toMatchObject({ key: "recencyWindow", oldValue: 20, newValue: null, bot: { id: bot.id } });
    const again = await t.db.prisma.settingChange.count();
    expect((await patchBot({ settings: { groupAnswerMode: "all" }, instructions: "Answer in French." })).status).toBe(200);
    expect(await t.db.prisma.settingChange.count()).toBe(again);
  });

  it("a refused change is neither stored nor logged", async () => {
    const before = await t.db.prisma.settingChange.count();
    const refused = await patchBot({ settings: { recencyWindow: 0 } });
    expect(refused.status).toBe(400);
    expect(await t.db.prisma.settingChange.count()).toBe(before);
    expect((await api("app/api/v1/bots/[id]/route.ts", "GET", `/api/v1/bots/${bot.id}`, { id: String(bot.id) })).body.bot.settings).toEqual(
      {
        groupAnswerMode: "all",
      },
    );
  });

  it("a global change is logged without a bot", async () => {
    expect((await api("app/api/v1/settings/route.ts", "PATCH", "/api/v1/settings", {}, { quoteMaxChars: 321 })).status).toBe(200);
    expect((await changeLog())[0]).toMatchObject({ key: "quoteMaxChars", oldValue: 200, newValue: 321, changedBy: "api", bot: null });
  });

  it("Apply logs what it writes to the replayed turns' bot as that bot's, and the rest as global", async () => {
    expect(
      (await t.post(update({ text: "hello", from: { id: 5151, first_name: "Dana" }, chat: { id: 5151, type: "private" } }))).status,
    ).toBe(200);
    const conversation = await t.db.prisma.conversation.findFirstOrThrow({ where: { botId: bot.id } });
    await applyVariant(t.db, { instructions: "Answer in German.", settings: { groupAnswerMode: "never", replyChainDepth: 5 } }, "bob", [
      conversation.id,
    ]);
    const [first, second, third] = await changeLog();
    const newest = [first, second, third].map(({ key, oldValue, newValue, changedBy, bot: b }) => ({
      key,
      oldValue,
      newValue,
      changedBy,
      bot: b?.id ?? null,
    }));
    expect(newest).toEqual(
      expect.arrayContaining([
        { key: "replyChainDepth", oldValue: 3, newValue: 5, changedBy: "bob", bot: null },
        { key: "agentInstructions", oldValue: "Answer in French.", newValue: "Answer in German.", changedBy: "bob", bot: bot.id },
        { key: "groupAnswerMode", oldValue: "all", newValue: "never", changedBy: "bob", bot: bot.id },
      ]),
    );
  });
});
