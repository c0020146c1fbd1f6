import { afterEach, beforeEach } from "vitest";
import { type App, processHolder } from "@/lib/server/wiring";
import { startTestApp, type TestApp } from "./app";
import type { TestDb } from "./db";
import { startFakeTelegram, type FakeTelegram } from "./fake-telegram";

// getApp() (lib/server/wiring.ts) keeps the process's app on its holder; route handlers under test read the test's.

/** Makes the route handlers imported by a test serve `app`, with `token` as the API token. */
export function installRouteApp(app: App, token: string) {
  processHolder.context = Promise.resolve({ ...app, env: { ...app.env, SWITCHBOARD_API_TOKEN: token } });
}

export function uninstallRouteApp() {
  processHolder.context = undefined;
}

export type RoutedApp = { readonly t: TestApp; readonly telegram: FakeTelegram; readonly testDb: TestDb };

/**
 * The set-up of tests that call route handlers directly: per test, a Bot API
 * fake, a fresh database from `open`, the app on it with no model, served to
 * the routes with `token`. After each test the worker settles and all is closed.
 */
export function useRoutedApp(options: { open: () => Promise<TestDb>; token: string }): RoutedApp {
  let telegram: FakeTelegram;
  let testDb: TestDb;
  let t: TestApp;
  beforeEach(async () => {
    telegram = await startFakeTelegram();
    testDb = await options.open();
    t = await startTestApp({ db: testDb, telegram, model: null, env: { SWITCHBOARD_API_TOKEN: options.token } });
    installRouteApp(t.app, options.token);
  });
  afterEach(async () => {
    uninstallRouteApp();
    await t.settle();
    await t.stop();
    await testDb.close();
    await telegram.close();
  });
  return {
    get t() {
      return t;
    },
    get telegram() {
      return telegram;
    },
    get testDb() {
      return testDb;
    },
  };
}
