import { afterAll, beforeAll } from "vitest";
import { startTestApp, type TestApp } from "./app";
import { sqliteTestDb, type TestDb } from "./db";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram";
import { scriptedModel } from "./mock-model";

export const LINE_SECRET = "platform-line-secret";

/**
 * One app for a whole file, with both platforms on: the Bot API fake, LINE
 * configured (signed with LINE_SECRET; sends go nowhere), and a model that never
 * calls reply, so every turn runs, nothing is sent and `answer` is still decided.
 */
export function usePlatformApp(open: () => Promise<TestDb> = sqliteTestDb) {
  const h = {} as { telegram: FakeTelegram; testDb: TestDb; t: TestApp };
  beforeAll(async () => {
    h.telegram = await startFakeTelegram();
    h.testDb = await open();
    h.t = await startTestApp({
      db: h.testDb,
      telegram: h.telegram,
      model: scriptedModel([]).handle,
      env: { LINE_CHANNEL_SECRET: LINE_SECRET, LINE_CHANNEL_ACCESS_TOKEN: "line-token", LINE_API_ROOT: "http://127.0.0.1:9" },
    });
  });
  afterAll(async () => {
    await h.t.stop();
    await h.testDb.close();
    await h.telegram.close();
  });
  return h;
}
