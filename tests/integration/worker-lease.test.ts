import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { claimTurns } from "@/lib/db/claim";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics/registry";
import { planTurn } from "@/lib/pipeline/turn-plan";
import { update } from "../fixtures/telegram";
import { startTestApp, type TestApp } from "../helpers/app";
import { databases, type TestDb } from "../helpers/db";
import { parseExposition, sampleValue } from "../helpers/exposition";
import { startFakeLlm, type FakeLlm } from "../helpers/fake-llm";
import { startFakeTelegram, type FakeTelegram } from "../helpers/fake-telegram";

/** Resolves once `check` holds, polling (the worker's heartbeat runs on its own timer). */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function takeoversCounted() {
  return sampleValue(parseExposition(await metrics()!.registry.metrics()), "switchboard_worker_takeovers_total", {});
}

/**
 * A claim is a lease renewed by a heartbeat while its turn runs: a dead worker's
 * conversations are taken over once the lease runs out (logged and counted), a live
 * worker keeps its lease through a model call longer than it, and a turn whose lease
 * another worker took sends nothing. Lease lengths are shortened for the tests.
 */
describe.each(databases)("worker leases on $name", ({ open }) => {
  let telegram: FakeTelegram;
  let llm: FakeLlm;
  let t: TestDb;
  const apps: TestApp[] = [];
  let release = () => {};
  beforeAll(async () => {
    telegram = await startFakeTelegram();
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await telegram.close();
    await llm.close();
  });
  afterEach(async () => {
    release();
    for (const app of apps.splice(0)) await app.stop();
    await t.close();
    vi.restoreAllMocks();
  });

  async function start(leaseMs: number | null) {
    const app = await startTestApp({ db: t, telegram, llm, leaseMs, env: { LLM_TIMEOUT_SECONDS: "60" } });
    apps.push(app);
    return app;
  }

  /** The model holds its answer until `release()`. */
  function holdModel() {
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    llm.setScript(() => ({ reply: "the answer", until: held }));
  }

  const inbound = () => t.db.prisma.envelope.findFirstOrThrow({ where: { to: "agent:main" } });

  async function setUp() {
    t = await open();
    telegram.calls.length = 0;
    llm.requests.length = 0;
    llm.setScript(() => ({ reply: "the answer" }));
  }

  it("a dead worker's claim is taken over once its lease has run out, not before; the takeover is logged and counted", async () => {
    await setUp();
    const survivor = await start(10_000);
    // The message arrives while the surviving worker is stopped; a worker that then dies claims it.
    await survivor.app.worker.stop();
    expect((await survivor.post(update({ text: "hello?" }))).status).toBe(200);
    const now = new Date();
    const claimed = await claimTurns(t.db, {
      worker: "worker-dead",
      now,
      leaseMs: 60_000,
      take: 5,
      busy: new Set(),
      served: [],
      channelMailOnly: false,
      quietMs: 0,
      plan: (queue) => planTurn(queue, { now, debounceMs: 0, modelPausedUntil: null }),
    });
    expect(claimed.turns).toHaveLength(1);
    const warn = vi.spyOn(log, "warn");
    const countedBefore = await takeoversCounted();

    // Its lease still holds: the survivor leaves the conversation alone.
    survivor.app.worker.start();
    await survivor.settle();
    expect(await inbound()).toMatchObject({ status: "processing", claimedBy: "worker-dead", attempts: 1 });
    expect(telegram.sends()).toEqual([]);
    expect(await takeoversCounted()).toBe(countedBefore);

    // The lease runs out (as if its minute had passed with no renewal): the survivor takes it over.
    const leaseEnded = new Date(Date.now() - 5_000);
    await t.db.prisma.envelope.updateMany({ where: { claimedBy: "worker-dead" }, data: { leaseUntil: leaseEnded } });
    survivor.app.worker.kick();
    await survivor.settle();
    const envelope = await inbound();
    expect(envelope).toMatchObject({ status: "done", attempts: 2, claimedBy: null });
    expect(telegram.sends().map((s) => s.body.text)).toEqual(["the answer"]);
    expect(await takeoversCounted()).toBe(countedBefore + 1);
    const logged = warn.mock.calls.filter(([event]) => event === "worker.takeover");
    expect(logged).toHaveLength(1);
    expect(logged[0][1]).toMatchObject({
      envelopeIds: [envelope.id],
      conversationId: envelope.conversationId,
      from: "worker-dead",
      leaseEndedAt: leaseEnded.toISOString(),
    });
    // Since the dead worker's last renewal: a lease (10 s here) plus the 5 s it lay expired, at least.
    expect((logged[0][1] as { orphanedMs: number }).orphanedMs).toBeGreaterThanOrEqual(15_000);
  });

  it("the lease is 30 s whatever the model's timeout (a dead instance's users wait about that long, not 4 × the timeout)", async () => {
    await setUp();
    holdModel();
    const app = await start(null);
    expect((await app.post(update({ text: "slow one" }))).status).toBe(200);
    await until(() => llm.requests.length === 1, "the model call");
    const envelope = await inbound();
    expect(envelope.status).toBe("processing");
    // Claimed at updatedAt with a lease to leaseUntil (LLM_TIMEOUT_SECONDS is 60 here).
    expect(envelope.leaseUntil!.getTime() - envelope.updatedAt.getTime()).toBe(30_000);
    release();
    await app.settle();
  });

  it("a live worker keeps its lease through a model call several leases long; the other instance never takes it", async () => {
    await setUp();
    holdModel();
    const countedBefore = await takeoversCounted();
    // A lease of 1 s (renewed every third of it): at 300 ms a loaded test machine's event loop
    // sometimes stalled past the lease and the other instance rightly took the turn over.
    const lease = 1_000;
    const [a, b] = [await start(lease), await start(lease)];
    expect((await a.post(update({ text: "think hard" }))).status).toBe(200);
    await until(() => llm.requests.length === 1, "the model call");
    const first = (await inbound()).leaseUntil!.getTime();
    // Past three of its leases, with both workers looking for due work all along.
    await until(async () => {
      a.app.worker.kick();
      b.app.worker.kick();
      return (await inbound()).leaseUntil!.getTime() > first + 3 * lease && Date.now() > first + 2 * lease;
    }, "three leases renewed");
    release();
    await Promise.all([a.settle(), b.settle()]);
    expect(await inbound()).toMatchObject({ status: "done", attempts: 1 });
    expect(llm.requests).toHaveLength(1);
    expect(telegram.sends().map((s) => s.body.text)).toEqual(["the answer"]);
    expect(await takeoversCounted()).toBe(countedBefore);
  });

  it("a turn whose lease another worker took (found by its next renewal) stops and sends nothing; the envelope stays the new holder's", async () => {
    await setUp();
    holdModel();
    const a = await start(300);
    const warn = vi.spyOn(log, "warn");
    expect((await a.post(update({ text: "are you there" }))).status).toBe(200);
    await until(() => llm.requests.length === 1, "the model call");
    // Another instance took the envelope over (this one had stalled past its lease).
    const { id } = await inbound();
    const otherLease = new Date(Date.now() + 60_000);
    await t.db.prisma.envelope.update({ where: { id }, data: { claimedBy: "worker-other", leaseUntil: otherLease } });
    await until(() => a.app.worker.load().running === 0, "the turn to stop", 5_000).catch(() => {});
    // Whatever happened, the model answers now: a turn still running would send it.
    release();
    await a.settle();
    expect(telegram.sends()).toEqual([]);
    expect(await inbound()).toMatchObject({ status: "processing", claimedBy: "worker-other", attempts: 1, leaseUntil: otherLease });
    expect(await t.db.prisma.turn.count()).toBe(0);
    expect(warn.mock.calls.filter(([event]) => event === "worker.lease_lost").map(([, fields]) => fields)).toEqual([
      expect.objectContaining({ envelopeIds: [id], reason: "another worker took the envelopes over" }),
    ]);
  });
});
