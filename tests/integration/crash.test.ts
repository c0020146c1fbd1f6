import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { SECRET } from "../helpers/app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

/** Starts the app in a child process; resolves with its port once it listens. */
function startProcess(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/app-process.mts"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      const match = /ready (\d+)/.exec(chunk.toString());
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once("exit", (code, signal) => reject(new Error(`app exited early (${code ?? signal})`)));
  });
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILL the app process (spawned as node --import tsx: no wrapper to survive it). */
const kill = async (child: ChildProcess) => {
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once("exit", r));
};

describe("a crash in the middle of a turn (SIGKILL, then restart)", () => {
  let testDb: TestDb;
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    testDb = await sqliteTestDb();
    telegram = await startFakeTelegram();
    llm = await startFakeLlm();
    env = {
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      DATABASE_URL: testDb.url,
      TELEGRAM_BOT_TOKEN: "1:crash",
      TELEGRAM_API_ROOT: telegram.url,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      LLM_PROVIDER: "openai-compatible",
      LLM_MODEL: "fake",
      LLM_BASE_URL: llm.baseUrl,
      TEST_LEASE_MS: "1500",
    };
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await kill(child);
    await telegram.close();
    await llm.close();
    await testDb.close();
  });

  const post = (port: number, body: unknown) =>
    fetch(`http://127.0.0.1:${port}/api/webhooks/telegram`, { method: "POST", headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET }, body: JSON.stringify(body) });

  it("killed while the model is thinking: the restarted server answers exactly once", async () => {
    let first = true;
    llm.setScript(() => {
      const hang = first;
      first = false;
      return { reply: "the one answer", ...(hang ? { delayMs: 30_000 } : {}) };
    });
    const a = await startProcess(env);
    children.push(a.child);
    expect((await post(a.port, update({ messageId: 1, text: "are you there?" }))).status).toBe(200);
    await until(() => llm.requests.length >= 1);
    await kill(a.child);

    const b = await startProcess(env);
    children.push(b.child);
    await until(() => telegram.sends().length >= 1);
    await new Promise((r) => setTimeout(r, 2_500)); // past another lease: nothing more may go out
    expect(telegram.sends().map((c) => c.body.text)).toEqual(["the one answer"]);
    expect(await testDb.db.message.count({ where: { direction: "outbound" } })).toBe(1);
    await until(async () => (await testDb.db.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status === "done");
  }, 60_000);

  it("killed after the send went out but before it was recorded: never sent twice, and the operator sees the unknown outcome", async () => {
    telegram.holdNext(30_000);
    const a = await startProcess(env);
    children.push(a.child);
    expect((await post(a.port, update({ messageId: 1, text: "hello?" }))).status).toBe(200);
    await until(() => telegram.sends().length >= 1);
    await kill(a.child);

    const b = await startProcess(env);
    children.push(b.child);
    // The turn is retried after the lease; the reply's dedupe key stops a second send.
    await until(async () => (await testDb.db.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status === "done");
    expect(telegram.sends()).toHaveLength(1);
    // The half-done send is not left pending forever: it is failed with the reason.
    await until(async () => (await testDb.db.envelope.findFirstOrThrow({ where: { from: "agent:main" } })).status === "failed", 20_000);
    const outbound = await testDb.db.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound.lastDeliveryError).toMatch(/outcome unknown/);
  }, 60_000);
});
