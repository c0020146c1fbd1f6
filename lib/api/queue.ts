import { z } from "zod";
import { recordIdParam } from "../record-id";
import { defineOperations, isoDate } from "./operation";

/** `botId`: the counts and time to answer of one bot's conversations (limits and model calls stay the instance's). */
export const queueQuery = z.object({ botId: recordIdParam.optional() });

const limits = z.strictObject({ turnConcurrency: z.number().int(), modelConcurrency: z.number().int(), burstDebounceMs: z.number().int() });

const limitChange = z.strictObject({
  at: isoDate,
  from: z.number().int(),
  to: z.number().int(),
  reason: z.enum(["start", "ceiling", "accepted", "succeeded", "rate_limited", "overloaded", "timeout", "slow"]),
  detail: z.string(),
});

/** The queue as operators see it: the database's view (all instances) and this instance's limits and model gate. */
export const queueResponse = z.strictObject({
  waiting: z.strictObject({
    /** Conversations with a due envelope: each one turn. */
    turns: z.number().int(),
    envelopes: z.number().int(),
    oldestWaitMs: z.number().nullable(),
  }),
  runningTurns: z.number().int(),
  /** Time to answer (user's message stored → answer sent) per minute over the last hour, oldest first. */
  timeToAnswer: z.array(z.strictObject({ at: isoDate, n: z.number().int(), p50: z.number().nullable(), p99: z.number().nullable() })),
  /** The limits in force (settings over the server's environment). */
  limits,
  instance: z.strictObject({
    /** Turns running on this instance, and the limits its worker last read. */
    running: z.number().int(),
    turns: z.number().int(),
    debounceMs: z.number().int(),
    /**
     * This instance's model calls: in flight, waiting for a slot, the rate-limit pause, and the
     * adaptive limit (docs/ARCHITECTURE.md, "Model call limits"): its value now, its ceiling, and why it last moved.
     */
    model: z
      .strictObject({
        provider: z.string(),
        model: z.string(),
        active: z.number().int(),
        waiting: z.number().int(),
        limit: z.number().int(),
        ceiling: z.number().int(),
        /** "slow_start": growing fast (a start, or long without congestion); "additive": slowly, after a back-off. */
        phase: z.enum(["slow_start", "additive"]),
        lastChange: limitChange,
        /** The last back-off (429, 503/529, timeout, latency jump); null when there was none. */
        lastBackoff: limitChange.nullable(),
        latencyMs: z.strictObject({ recent: z.number(), baseline: z.number() }).nullable(),
        pausedUntil: isoDate.nullable(),
        refusingSince: isoDate.nullable(),
      })
      .nullable(),
  }),
});

export const operations = defineOperations([
  {
    method: "get",
    path: "/queue",
    summary:
      "The worker's queue: turns waiting and running, oldest wait, limits in force, this instance's model calls, time to answer per minute (p50/p99, last hour); ?botId= counts one bot's conversations; an agent limited to some bots counts theirs only",
    query: queueQuery,
    response: { status: 200, schema: queueResponse },
  },
]);
