import { afterEach, describe, expect, it, vi } from "vitest";
import type { ClaimOptions, ClaimResult } from "@/lib/db/claim";

const claims: { resolve: (r: ClaimResult) => void; options: ClaimOptions }[] = [];
vi.mock("@/lib/db/claim", () => ({
  claimTurns: (_db: unknown, options: ClaimOptions) => new Promise<ClaimResult>((resolve) => claims.push({ resolve, options })),
  deferEnvelopes: async () => {},
  renewLeases: async () => {},
  hasDueWork: async () => false,
}));

const { EnvelopeWorker } = await import("@/lib/pipeline/worker");

async function until(condition: () => boolean) {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("the worker's timer", () => {
  let worker: InstanceType<typeof EnvelopeWorker> | undefined;
  afterEach(async () => {
    for (const c of claims.splice(0)) c.resolve({ turns: [], takeovers: [], wakeAt: null });
    await worker?.stop();
  });

  it("wakes for a message that arrived while a drain was claiming (the drain's snapshot missed it), not at the next safety poll", async () => {
    worker = new EnvelopeWorker({
      db: {} as never,
      run: async () => {},
      leaseMs: 10_000,
      maxAttempts: 3,
      backoffMs: () => 10,
      limits: async () => ({ turns: 10, debounceMs: 50 }),
      pollMs: 60_000,
    });
    worker.start();
    await until(() => claims.length === 1);
    claims[0].resolve({ turns: [], takeovers: [], wakeAt: null }); // nothing due: the worker sleeps until the safety poll
    await new Promise((r) => setTimeout(r, 20));
    worker.kick(); // another drain (a turn ended elsewhere) …
    await until(() => claims.length === 2);
    worker.messageArrived(); // … and a message arrives while it claims, after its snapshot
    claims[1].resolve({ turns: [], takeovers: [], wakeAt: null });
    // The message's debounce (50 ms) ends: the worker drains again to take it.
    await until(() => claims.length === 3);
    expect(claims.length).toBe(3);
  });
});
