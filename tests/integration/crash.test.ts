import type { ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { update } from "../fixtures/telegram";
import { childEnv, postToChild, startChildApp } from "../helpers/child-app";
import { sqliteTestDb, type TestDb } from "../helpers/db";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

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
    env = childEnv(testDb, telegram, llm);
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await kill(child);
    await telegram.close();
    await llm.close();
    await testDb.close();
  });

  it("killed while the model is thinking: the restarted server answers exactly once", async () => {
    let first = true;
    llm.setScript(() => {
      const hang = first;
      first = false;
      return { reply: "the one answer", ...(hang ? { delayMs: 30_000 } : {}) };
    });
    const a = await startChildApp(env);
    children.push(a.child);
    expect((await postToChild(a.port, update({ messageId: 1, text: "are you there?" }))).status).toBe(200);
    await until(() => llm.requests.length >= 1);
    await kill(a.child);

    const b = await startChildApp(env);
    children.push(b.child);
    await until(() => telegram.sends().length >= 1);
    await new Promise((r) => setTimeout(r, 2_500)); // past another lease: nothing more may go out
    expect(telegram.sends().map((c) => c.body.text)).toEqual(["the one answer"]);
    expect(await testDb.db.prisma.message.count({ where: { direction: "outbound" } })).toBe(1);
    await until(async () => (await testDb.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status === "done");
  }, 60_000);

  it("killed after the send went out but before it was recorded: never sent twice, and the operator sees the unknown outcome", async () => {
    telegram.holdNext(30_000);
    const a = await startChildApp(env);
    children.push(a.child);
    expect((await postToChild(a.port, update({ messageId: 1, text: "hello?" }))).status).toBe(200);
    await until(() => telegram.sends().length >= 1);
    await kill(a.child);

    const b = await startChildApp(env);
    children.push(b.child);
    // The turn is retried after the lease; the reply's dedupe key stops a second send.
    await until(async () => (await testDb.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } })).status === "done");
    expect(telegram.sends()).toHaveLength(1);
    // The half-done send is not left pending forever: it is failed with the reason, and its
    // message kept. (Housekeeping claims it as failed first, then links the kept message: wait for both.)
    await until(async () => {
      const e = await testDb.db.prisma.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
      return e.status === "failed" && e.messageId !== null;
    }, 20_000);
    const outbound = await testDb.db.prisma.envelope.findFirstOrThrow({ where: { from: "agent:main" } });
    expect(outbound.lastDeliveryError).toMatch(/outcome unknown/);
    // The user probably has it: it stays in the history the model and the operator see, marked by its envelope.
    const kept = await testDb.db.prisma.message.findFirstOrThrow({ where: { direction: "outbound" } });
    expect(outbound.messageId).toBe(kept.id);
  }, 60_000);
});
