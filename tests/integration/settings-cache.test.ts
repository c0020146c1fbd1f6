import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb, type Database } from "@/lib/db/database";
import { botSettingEntries } from "@/lib/bots/bot-config";
import { writeSealed } from "@/lib/db/bots";
import { writeBotChange } from "@/lib/db/settings";
import { settingsFor, settingsInForce } from "@/lib/settings/reader";
import { updateSettings } from "@/lib/settings/store";
import { databases, type TestDb } from "../helpers/db";

/** Polls until `check` holds (another instance's change arrives within about a second); no timing is asserted. */
async function eventually(check: () => Promise<boolean>, limitMs = 15_000) {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A change to a bot's own settings as the bots API writes it: the row and its change-log rows together. */
async function overrideBot(db: Database, id: number, overrides: Record<string, unknown>) {
  const row = await db.prisma.bot.findUniqueOrThrow({ where: { id } });
  const change = { settings: JSON.stringify(overrides) };
  expect(await writeBotChange(db, id, change, { entries: botSettingEntries(row, change), changedBy: "operator:ada" })).toBe(true);
}

describe.each(databases)("one settings cache per database handle on $name", ({ open }) => {
  let t: TestDb;
  let other: Database;
  beforeEach(async () => {
    t = await open();
    // A second instance: its own handle (connections and cache) on the same database.
    other = await openDb(t.url);
  });
  afterEach(async () => {
    await other.close();
    await t.close();
  });

  it("a change is effective at once on the handle that made it", async () => {
    expect((await settingsFor(t.db)).recencyWindow).not.toBe(7);
    await updateSettings(t.db, { recencyWindow: 7 }, "operator:ada");
    expect((await settingsFor(t.db)).recencyWindow).toBe(7);
    await updateSettings(t.db, { agentName: "helper" }, "operator:ada");
    expect(await settingsFor(t.db)).toMatchObject({ recencyWindow: 7, agentName: "helper" });
  });

  it("a change through one handle reaches another handle that had the settings cached", async () => {
    const before = await settingsFor(other);
    expect(before.recencyWindow).not.toBe(9);
    await updateSettings(t.db, { recencyWindow: 9, agentName: "helper" }, "operator:ada");
    await eventually(async () => (await settingsFor(other)).recencyWindow === 9);
    expect((await settingsFor(other)).agentName).toBe("helper");
    // And back again: seen too.
    await updateSettings(t.db, { recencyWindow: before.recencyWindow }, "operator:ada");
    await eventually(async () => (await settingsFor(other)).recencyWindow === before.recencyWindow);
  });

  it("readers that miss together share one snapshot", async () => {
    await updateSettings(t.db, { recencyWindow: 11 }, "operator:ada");
    const all = await Promise.all(Array.from({ length: 20 }, () => settingsFor(other)));
    expect(new Set(all).size).toBe(1);
    expect(all[0].recencyWindow).toBe(11);
  });

  describe("a bot's own settings in the same cache", () => {
    let botId: number;
    beforeEach(async () => {
      botId = (await t.db.prisma.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-9", name: "Nine" } })).id;
    });

    it("a bot's change and a global one through this handle are in force at once, together", async () => {
      // Both cached first: the change must not wait for a second to pass.
      expect((await settingsFor(t.db, { adapter: "telegram-9" })).agentName).not.toBe("tess");
      await overrideBot(t.db, botId, { agentName: "tess" });
      expect((await settingsFor(t.db, { adapter: "telegram-9" })).agentName).toBe("tess");
      await updateSettings(t.db, { recencyWindow: 13 }, "operator:ada");
      const inForce = await settingsInForce(t.db, { adapter: "telegram-9" });
      expect(inForce.settings).toMatchObject({ agentName: "tess", recencyWindow: 13 });
      expect(inForce.global).toMatchObject({ recencyWindow: 13 });
      expect(inForce.global.agentName).not.toBe("tess");
      expect(inForce.bot).toMatchObject({ id: botId, adapter: "telegram-9" });
      expect(await settingsFor(t.db, { botId })).toBe(inForce.settings);
    });

    it("another handle sees a bot's change no later than a global one made after it", async () => {
      expect((await settingsFor(other, { adapter: "telegram-9" })).agentName).not.toBe("tess");
      await overrideBot(t.db, botId, { agentName: "tess" });
      await updateSettings(t.db, { recencyWindow: 15 }, "operator:ada");
      let seen = await settingsFor(other, { adapter: "telegram-9" });
      await eventually(async () => {
        seen = await settingsFor(other, { adapter: "telegram-9" });
        return seen.recencyWindow === 15;
      });
      expect(seen.agentName).toBe("tess");
    });

    it("a bot row written without a change-log row (its model key re-sealed) reaches the other handle too", async () => {
      expect((await settingsInForce(other, { adapter: "telegram-9" })).bot?.modelApiKey).toBeNull();
      await writeSealed(t.db, botId, { credentials: null, webhookSecret: null, modelApiKey: "sealed-key" });
      await eventually(async () => (await settingsInForce(other, { adapter: "telegram-9" })).bot?.modelApiKey === "sealed-key");
    });
  });
});
