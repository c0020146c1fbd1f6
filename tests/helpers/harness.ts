import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startTestApp, type TestApp } from "./app";
import { sqliteTestDb, type TestDb } from "./db";
import { startFakeLlm, type FakeLlm, type Script } from "./fake-llm";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram";
import { scriptedModel } from "./mock-model";
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
export function useHarness(
  options: {
    open?: () => Promise<TestDb>;
    script?: Script;
    withModel?: boolean;
    env?: Record<string, string>;
    refusingForGoodMs?: number;
  } = {},
): Harness {
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
    h.t = await startTestApp({
      db: h.testDb,
      telegram: h.telegram,
      ...(options.withModel === false ? { model: null } : { llm: h.llm }),
      ...(options.env ? { env: options.env } : {}),
      refusingForGoodMs: options.refusingForGoodMs,
    });
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

export type ScriptedApp = {
  readonly telegram: FakeTelegram;
  readonly testDb: TestDb;
  /** The app the running test started with `start`. */
  readonly t: TestApp;
  /** Wires the app on this test's database with a scripted model (null: no model configured). */
  start(steps: Parameters<typeof scriptedModel>[0] | null): Promise<{ calls: ReturnType<typeof scriptedModel>["calls"] }>;
  /** The texts the bot sent, in order. */
  sendTexts(): string[];
};

/**
 * The set-up of tests that script the model's tool calls (AI SDK mock model):
 * a Bot API fake for the file, a fresh SQLite database per test, and the app
 * started by the test itself, since each test scripts its own model. After each
 * test the worker settles and every stored prompt must parse back intact.
 */
export function useScriptedApp(): ScriptedApp {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp | undefined;
  beforeAll(async () => {
    telegram = await startFakeTelegram();
  });
  afterAll(() => telegram.close());
  beforeEach(async () => {
    telegram.calls.length = 0;
    testDb = await sqliteTestDb();
  });
  afterEach(async () => {
    if (t) {
      await t.settle();
      await assertStoredTurnsIntact(t.db);
    }
    await t?.stop();
    t = undefined;
    await testDb.close();
  });
  return {
    get telegram() {
      return telegram;
    },
    get testDb() {
      return testDb;
    },
    get t() {
      if (!t) throw new Error("the test has not started the app: call start() first");
      return t;
    },
    async start(steps) {
      const scripted = steps ? scriptedModel(steps) : null;
      t = await startTestApp({ db: testDb, telegram, model: scripted ? scripted.handle : null });
      return { calls: scripted?.calls ?? [] };
    },
    sendTexts: () => telegram.sends().map((c) => c.body.text),
  };
}
