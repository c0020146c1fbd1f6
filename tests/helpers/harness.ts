import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startTestApp, type TestApp } from "./app";
import { sqliteTestDb, type TestDb } from "./db";
import { startFakeLlm, type FakeLlm, type Script } from "./fake-llm";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram";
import { assertLlmRequestsIntact, assertStoredTurnsIntact } from "./prompt-integrity";

export type Harness = { telegram: FakeTelegram; llm: FakeLlm; testDb: TestDb; t: TestApp };

/**
 * The usual integration set-up, as vitest hooks: a Bot API fake and a model fake
 * for the file (calls cleared before each test), and a fresh database with the
 * app wired on it for each test. Tests read the live objects from the result.
 * After each test, every prompt it produced (the exact requests the model fake
 * received, and the turns stored for the prompt inspector) must parse back
 * intact (tests/helpers/prompt-integrity.ts).
 */
export function useHarness(options: { open?: () => Promise<TestDb>; script?: Script; withModel?: boolean } = {}): Harness {
  const h = {} as Harness;
  const script = options.script ?? (() => ({ reply: "Hello from the fake model" }));
  beforeAll(async () => {
    h.telegram = await startFakeTelegram();
    h.llm = await startFakeLlm(script);
  });
  afterAll(async () => {
    await h.telegram.close();
    await h.llm.close();
  });
  beforeEach(async () => {
    h.telegram.calls.length = 0;
    h.llm.requests.length = 0;
    h.llm.setScript(script);
    h.testDb = await (options.open ?? sqliteTestDb)();
    h.t = await startTestApp({ db: h.testDb, telegram: h.telegram, ...(options.withModel === false ? { model: null } : { llm: h.llm }) });
  });
  afterEach(async () => {
    await h.t.settle();
    await assertLlmRequestsIntact(h.llm.requests, h.t.db);
    await assertStoredTurnsIntact(h.t.db);
    await h.t.stop();
    await h.testDb.close();
  });
  return h;
}
