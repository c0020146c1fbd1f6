import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { defaultTurnConcurrency, TURN_MEMORY_BYTES } from "@/lib/turn-memory";

const GiB = 2 ** 30;

describe("the worker's default concurrency", () => {
  it("is as many waiting turns as a quarter of the heap holds, between 50 and 1,000", () => {
    expect(defaultTurnConcurrency(4 * GiB)).toBe(1_000);
    expect(defaultTurnConcurrency(2 * GiB)).toBe(1_000);
    expect(defaultTurnConcurrency(GiB)).toBe(GiB / 4 / TURN_MEMORY_BYTES);
    expect(defaultTurnConcurrency(64 * 2 ** 20)).toBe(50);
  });

  it("applies when WORKER_CONCURRENCY is unset; the model-call ceiling defaults to 1,000", () => {
    const env = parseEnv({ NODE_ENV: "test" });
    expect(env.WORKER_CONCURRENCY).toBeGreaterThanOrEqual(50);
    expect(env.LLM_CONCURRENCY).toBe(1_000);
    expect(parseEnv({ NODE_ENV: "test", WORKER_CONCURRENCY: "7" }).WORKER_CONCURRENCY).toBe(7);
  });
});
