import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb, type Database } from "@/lib/db/database";
import { getSettings, updateSettings } from "@/lib/settings/store";
import { databases, type TestDb } from "../helpers/db";

/** Polls until `check` holds (another instance's change arrives within about a second); no timing is asserted. */
async function eventually(check: () => Promise<boolean>, limitMs = 15_000) {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
    expect((await getSettings(t.db)).recencyWindow).not.toBe(7);
    await updateSettings(t.db, { recencyWindow: 7 }, "operator:ada");
    expect((await getSettings(t.db)).recencyWindow).toBe(7);
    await updateSettings(t.db, { agentName: "helper" }, "operator:ada");
    expect(await getSettings(t.db)).toMatchObject({ recencyWindow: 7, agentName: "helper" });
  });

  it("a change through one handle reaches another handle that had the settings cached", async () => {
    const before = await getSettings(other);
    expect(before.recencyWindow).not.toBe(9);
    await updateSettings(t.db, { recencyWindow: 9, agentName: "helper" }, "operator:ada");
    await eventually(async () => (await getSettings(other)).recencyWindow === 9);
    expect((await getSettings(other)).agentName).toBe("helper");
    // And back again: seen too.
    await updateSettings(t.db, { recencyWindow: before.recencyWindow }, "operator:ada");
    await eventually(async () => (await getSettings(other)).recencyWindow === before.recencyWindow);
  });

  it("readers that miss together share one snapshot", async () => {
    await updateSettings(t.db, { recencyWindow: 11 }, "operator:ada");
    const all = await Promise.all(Array.from({ length: 20 }, () => getSettings(other)));
    expect(new Set(all).size).toBe(1);
    expect(all[0].recencyWindow).toBe(11);
  });
});
