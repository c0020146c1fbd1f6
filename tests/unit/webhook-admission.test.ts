import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { countSends, WebhookAdmission } from "@/lib/pipeline/webhook-admission";
import { eventLoopLoad } from "@/lib/server/event-loop-load";

/** An admission whose load the test sets: `busy` turns at work, `saturated` thread. */
function admission(limit = 4, maxWaitMs = 2_000) {
  const load = { busy: 0, saturated: true };
  const gate = new WebhookAdmission({
    busyTurns: () => load.busy,
    saturated: () => load.saturated,
    limit,
    maxWaitMs,
    recheckMs: 10,
  });
  /** Admits a webhook named `name`; `order` lists them as they are let in, with how long each waited. */
  const order: { name: string; waited: number }[] = [];
  const admit = (name: string) => gate.admit().then((waited) => order.push({ name, waited }));
  return { gate, load, admit, order };
}

describe("webhook admission under a burst", () => {
  // Waits are measured on performance.now (a wall-clock step must not stretch them).
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "performance", "Date"] }));
  afterEach(() => vi.useRealTimers());

  it("lets a webhook in at once while the thread has time to spare, however many turns are at work", async () => {
    const { load, admit, order } = admission();
    load.busy = 500;
    load.saturated = false;
    await admit("a");
    expect(order).toEqual([{ name: "a", waited: 0 }]);
  });

  it("lets a webhook in at once on a saturated thread while fewer turns than the limit are at work", async () => {
    const { load, admit, order } = admission(4);
    load.busy = 3;
    await admit("a");
    expect(order).toEqual([{ name: "a", waited: 0 }]);
  });

  it("holds webhooks while the limit of turns or more are at work on a saturated thread, then lets them in oldest first", async () => {
    const { gate, load, admit, order } = admission(4);
    load.busy = 10;
    void admit("a");
    await vi.advanceTimersByTimeAsync(5);
    void admit("b");
    await vi.advanceTimersByTimeAsync(100);
    expect(order).toEqual([]);
    expect(gate.waitingCount).toBe(2);

    load.busy = 0;
    await vi.advanceTimersByTimeAsync(10);
    expect(order.map((o) => o.name)).toEqual(["a", "b"]);
    expect(order[0].waited).toBeGreaterThanOrEqual(100);
    expect(gate.waitingCount).toBe(0);
  });

  it("lets in as many as there is room below the limit at each look, not all at once", async () => {
    const { load, admit, order } = admission(4);
    load.busy = 10;
    for (const name of ["a", "b", "c", "d", "e"]) void admit(name);
    await vi.advanceTimersByTimeAsync(50);
    load.busy = 2;
    await vi.advanceTimersByTimeAsync(10);
    expect(order.map((o) => o.name)).toEqual(["a", "b"]);
    await vi.advanceTimersByTimeAsync(10);
    expect(order.map((o) => o.name)).toEqual(["a", "b", "c", "d"]);
  });

  it("lets every waiting webhook in once the thread has time to spare again", async () => {
    const { load, admit, order } = admission(4);
    load.busy = 50;
    for (const name of ["a", "b", "c"]) void admit(name);
    await vi.advanceTimersByTimeAsync(30);
    load.saturated = false;
    await vi.advanceTimersByTimeAsync(10);
    expect(order.map((o) => o.name)).toEqual(["a", "b", "c"]);
  });

  it("never holds a webhook longer than the longest wait, however long the burst lasts", async () => {
    const { load, admit, order } = admission(4, 2_000);
    load.busy = 1_000;
    void admit("a");
    await vi.advanceTimersByTimeAsync(1_990);
    expect(order).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(order).toHaveLength(1);
    expect(order[0].waited).toBeGreaterThanOrEqual(2_000);
    expect(order[0].waited).toBeLessThan(2_020);
  });

  it("queues a newcomer behind those already waiting even when a place has just opened", async () => {
    const { load, admit, order } = admission(4);
    load.busy = 10;
    void admit("a");
    await vi.advanceTimersByTimeAsync(3);
    load.busy = 3; // room for one, but "a" came first
    void admit("b");
    await vi.advanceTimersByTimeAsync(10);
    expect(order.map((o) => o.name)).toEqual(["a"]);
  });
});

describe("webhook admission, failing open", () => {
  it("lets an update in when its load cannot be read", async () => {
    const gate = new WebhookAdmission({
      busyTurns: () => {
        throw new Error("no reading");
      },
      saturated: () => true,
      limit: 1,
      maxWaitMs: 60_000,
    });
    await expect(gate.admit()).resolves.toBe(0);
  });
});

describe("sends in flight", () => {
  it("counts a send while it runs, and no longer once it is done or has failed", async () => {
    const inFlight = { sends: 0 };
    let finish: (ok: boolean) => void = () => {};
    const adapter = countSends(
      {
        name: "telegram",
        send: () =>
          new Promise((resolve, reject) => {
            finish = (ok) => (ok ? resolve({ platformMessageId: "1", sentAt: new Date() }) : reject(new Error("refused")));
          }),
      } as never as import("@/lib/channels/types").ChannelAdapter,
      inFlight,
    );
    const sent = adapter.send({} as never);
    expect(inFlight.sends).toBe(1);
    finish(true);
    await sent;
    expect(inFlight.sends).toBe(0);
    const failed = adapter.send({} as never).catch(() => "failed");
    expect(inFlight.sends).toBe(1);
    finish(false);
    expect(await failed).toBe("failed");
    expect(inFlight.sends).toBe(0);
  });
});

describe("event loop load", () => {
  it("reads a blocked event loop as fully used and an idle one as free", async () => {
    const load = eventLoopLoad(50);
    try {
      await new Promise((r) => setTimeout(r, 60));
      const spinUntil = performance.now() + 160;
      while (performance.now() < spinUntil) {
        // the thread has no time to spare
      }
      await new Promise((r) => setTimeout(r, 5));
      expect(load.utilization()).toBeGreaterThan(0.8);
      await new Promise((r) => setTimeout(r, 200));
      expect(load.utilization()).toBeLessThan(0.5);
    } finally {
      load.stop();
    }
  });
});
