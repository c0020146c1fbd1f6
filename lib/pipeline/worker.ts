import { AsyncResource } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { RateLimitedError } from "../agent/call-limits";
import type { Database } from "../db/database";
import { QUEUE_WORK, withArrival } from "../db/arrival";
import { claimTurns, deferEnvelopes, hasDueWork, renewLeases, type ClaimedTurn, type Takeover } from "../db/claim";
import { retryEnvelopeLater } from "../db/envelopes";
import { endEnvelope } from "./end-envelope";
import { isTransientConflict } from "../db/errors";
import { workKinds } from "../envelope/work-kinds";
import { log } from "../log";
import { planTurn } from "./turn-plan";

export type { ClaimedTurn, Takeover };

/** Why a running turn stopped: another worker holds its envelopes now. Nothing more of it goes to the chat. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** What the worker reads before every drain: an operator's change applies at once, no restart. */
export type WorkerLimits = {
  /** Conversations run at once (each one strictly in order). */
  turns: number;
  /** Quiet time after a user's last message before the turn starts. */
  debounceMs: number;
};

export type WorkerDeps = {
  db: Database;
  /** Runs one claimed turn (one envelope, or a burst of one conversation's messages); throws to ask for a retry. Its outcome is on the envelopes. */
  run: (turn: ClaimedTurn) => Promise<unknown>;
  /**
   * How long a claim holds before another worker may take the envelope over. Running
   * turns renew it every third of it (a heartbeat), so it bounds how long a dead
   * instance's conversations wait, not how long a turn may take.
   */
  leaseMs: number;
  maxAttempts: number;
  /** Delay before attempt n+1 after n failed attempts. */
  backoffMs: (attempts: number) => number;
  limits: () => Promise<WorkerLimits>;
  /** When the model's provider is paused by a rate limit (its turns wait; channel mail goes on). */
  modelPausedUntil?: () => Date | null;
  /** Housekeeping on every timer tick (fork idle timeouts and expiry). */
  onTick?: () => Promise<void>;
  /** The longest sleep between ticks when nothing is due (default 30 s). */
  pollMs?: number;
  now?: () => Date;
  /** Each envelope taken over from a worker whose lease ran out (the wiring counts them). */
  onTakeover?: (takeover: Takeover) => void;
};

/** A running turn's hold on its envelopes: aborted when another worker has taken them. */
type Lease = { ids: number[]; lost: AbortController };

/**
 * A claim's lease: how long a dead (or stalled) instance's turns wait before another
 * instance takes them over. BullMQ's default lock, 30 s, renewed here every 10 s.
 */
export const WORKER_LEASE_MS = 30_000;
const SAFETY_POLL_MS = 30_000;
const HOUSEKEEPING_MS = 10_000;
/**
 * How long kicks that arrived during a drain gather before the next one: at least
 * 10 ms, and twice what the last drain took (at most 100 ms), so under load claims
 * take at most about a third of the time however costly each one is, and each
 * serves the turn ends and arrivals of its gathering together.
 */
const AGAIN_DELAY_MS = 10;
const MAX_AGAIN_DELAY_MS = 100;

/**
 * Runs the envelope queue: many conversations at once (up to the `turns` limit),
 * each strictly in order, claimed fairly (lib/db/claim.ts: oldest wait first,
 * round-robin), with a user's burst of messages taken into one turn once it has
 * been quiet for the debounce (lib/pipeline/turn-plan.ts). It drains after each
 * finished turn and kick, and otherwise sleeps until the next due time (a timer,
 * not busy polling). Claims are leases, so several instances can share one
 * database and a crashed worker's envelopes are taken over once the lease runs out.
 */
export class EnvelopeWorker {
  readonly id = `worker-${randomUUID().slice(0, 8)}`;
  private readonly busy = new Set<number>();
  private readonly running = new Set<Promise<void>>();
  private served: { conversationId: number; at: Date }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  /** The earliest debounce end of messages that arrived while a drain ran (its claim may have missed them). */
  private arrivedWake = Infinity;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private limits: WorkerLimits = { turns: 1, debounceMs: 0 };
  private housekeptAt = 0;
  private housekeeping: Promise<void> | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private renewing = false;
  private readonly leases = new Set<Lease>();
  /**
   * The async context the worker was made in (server start). Drains run in it, not in
   * the context of the webhook request whose message woke them: turns are background
   * work and should not carry (and keep alive) a finished request's stores, which
   * the framework reads (Next's patched fetch, for one). No CPU difference measured.
   */
  private readonly scope = new AsyncResource("EnvelopeWorker");

  constructor(private readonly deps: WorkerDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  start() {
    this.stopped = false;
    this.kick();
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.renewal);
    this.renewal = undefined;
    this.timerAt = Infinity;
    await Promise.allSettled([...this.running, this.draining, this.housekeeping]);
  }

  /** Turns running here and the limits in force, for the dashboard. */
  load() {
    return { running: this.running.size, ...this.limits };
  }

  /** Something may be due now: drain soon (coalesced). */
  kick() {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    const started = performance.now();
    this.draining = this.scope
      // The whole drain (its settings read too) is the queue's own work: it comes before any turn's statements.
      .runInAsyncScope(() => withArrival(QUEUE_WORK, () => this.drain()))
      .catch((error) => log.error("worker.drain_failed", { error }))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          // What asked for a drain while one ran (turns ending, messages arriving) is served
          // together a moment later: under load a claim per turn end was most of the claims.
          const took = performance.now() - started;
          this.wakeAt(this.now().getTime() + Math.min(MAX_AGAIN_DELAY_MS, Math.max(AGAIN_DELAY_MS, 2 * took)));
        }
      });
  }

  /**
   * A user's message was stored: its turn is due once the debounce has passed
   * (a burst's next message moves that on), so wake then instead of draining now.
   */
  messageArrived() {
    if (this.limits.debounceMs <= 0) return this.kick();
    const at = this.now().getTime() + this.limits.debounceMs;
    // A drain under way may not have seen this message: its wake must survive the timer the drain sets.
    if (this.draining) this.arrivedWake = Math.min(this.arrivedWake, at);
    this.wakeAt(at);
  }

  /**
   * Resolves when nothing is running and nothing is due within `horizonMs`
   * (debounce and short retries included): for tests and graceful shutdown.
   */
  async idle(horizonMs = 1_000): Promise<void> {
    for (;;) {
      await this.draining;
      await Promise.allSettled([...this.running]);
      if (this.draining || this.running.size > 0) continue;
      const due = await hasDueWork(this.deps.db, new Date(this.now().getTime() + horizonMs));
      // A drain that began during that read may have claimed what it would have found.
      if (this.draining || this.running.size > 0) continue;
      if (!due) return;
      this.kick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async drain() {
    this.arrivedWake = Infinity;
    this.limits = await this.deps.limits();
    const now = this.now();
    this.housekeep(now.getTime());
    const served = this.served.splice(0);
    const paused = this.deps.modelPausedUntil?.() ?? null;
    let result: Awaited<ReturnType<typeof claimTurns>>;
    try {
      result = await claimTurns(this.deps.db, {
        worker: this.id,
        now,
        leaseMs: this.deps.leaseMs,
        take: this.limits.turns - this.running.size,
        busy: this.busy,
        served,
        channelMailOnly: paused !== null,
        quietMs: this.limits.debounceMs,
        plan: (queue) => planTurn(queue, { now, debounceMs: this.limits.debounceMs, modelPausedUntil: paused }),
      });
    } catch (error) {
      this.served.unshift(...served);
      if (isTransientConflict(error)) {
        // Another instance's transaction won a lock conflict; this claim wrote nothing. Claim again soon.
        log.debug("worker.drain_retry", { code: (error as { code: string }).code });
        this.wakeAt(now.getTime() + 20 + Math.random() * 80);
        return;
      }
      this.wakeAt(now.getTime() + 1_000);
      throw error;
    }
    this.reportTakeovers(result.takeovers, now);
    for (const turn of result.turns) {
      if (this.stopped) break;
      const conversationId = turn.conversationId;
      if (conversationId !== null) this.busy.add(conversationId);
      const lease: Lease = { ids: turn.envelopes.map((e) => e.id), lost: new AbortController() };
      this.leases.add(lease);
      const task = this.execute({ ...turn, lease: lease.lost.signal }).finally(() => {
        this.leases.delete(lease);
        if (conversationId !== null) {
          this.busy.delete(conversationId);
          this.served.push({ conversationId, at: this.now() });
        }
        this.running.delete(task);
        if (this.running.size === 0) {
          clearInterval(this.renewal);
          this.renewal = undefined;
        }
        this.kick();
      });
      this.running.add(task);
    }
    if (this.running.size > 0 && !this.renewal) {
      // While turns run, a timer of its own renews their leases (whatever a turn is waiting
      // for): only a dead or stalled worker's claims run out. A third of the lease, so one
      // late or failed renewal still leaves one more before the lease ends.
      this.renewal = setInterval(() => this.heartbeat(), Math.max(10, this.deps.leaseMs / 3));
      this.renewal.unref?.();
    }
    const wake = [result.wakeAt?.getTime(), paused?.getTime(), this.arrivedWake].filter(
      (t): t is number => t !== undefined && t !== Infinity,
    );
    this.wakeAt(wake.length ? Math.min(...wake) : Infinity, true);
  }

  /**
   * Renews the running turns' leases. A turn whose envelopes another worker holds now
   * (this one stalled past its lease and was taken over) is stopped before it sends
   * anything more: the new holder answers it. Its envelopes are left to that holder.
   * (Were it to send first, the reply's dedupe key would still keep it to one answer.)
   */
  private async heartbeat() {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const held = [...this.leases].filter((l) => !l.lost.signal.aborted);
      const until = new Date(this.now().getTime() + this.deps.leaseMs);
      const lost = new Set(
        await withArrival(QUEUE_WORK, () =>
          renewLeases(
            this.deps.db,
            this.id,
            until,
            held.flatMap((l) => l.ids),
          ),
        ),
      );
      for (const lease of held)
        if (lease.ids.some((id) => lost.has(id))) lease.lost.abort(new LeaseLostError("another worker took the envelopes over"));
    } catch (error) {
      log.error("worker.renew_failed", { error });
    } finally {
      this.renewing = false;
    }
  }

  /** Logs and counts envelopes claimed here after their holder's lease ran out, one line per turn taken over. */
  private reportTakeovers(takeovers: Takeover[], now: Date) {
    const byTurn = new Map<number | string, Takeover[]>();
    for (const t of takeovers) {
      const key = t.conversationId ?? `envelope-${t.envelopeId}`;
      byTurn.set(key, [...(byTurn.get(key) ?? []), t]);
      this.deps.onTakeover?.(t);
    }
    for (const group of byTurn.values()) {
      const leaseUntil = Math.min(...group.map((t) => t.leaseUntil.getTime()));
      log.warn("worker.takeover", {
        envelopeIds: group.map((t) => t.envelopeId),
        conversationId: group[0].conversationId,
        from: group[0].from,
        // Since its holder's last renewal (a lease ago from its end): how long its user waited on a dead worker.
        orphanedMs: now.getTime() - leaseUntil + this.deps.leaseMs,
        leaseEndedAt: new Date(leaseUntil).toISOString(),
      });
    }
  }

  /** A turn's database work is as old as its oldest message (lib/db/arrival.ts): older turns get connections first. */
  private execute(turn: ClaimedTurn) {
    return withArrival(Math.min(...turn.envelopes.map((e) => e.createdAt.getTime())), () => this.runTurn(turn));
  }

  private async runTurn(turn: ClaimedTurn) {
    const ids = turn.envelopes.map((e) => e.id);
    try {
      await this.deps.run(turn);
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (turn.lease?.aborted) {
        // Its envelopes are another worker's now (or will be once claimed again): not ours to retry or fail.
        log.warn("worker.lease_lost", {
          envelopeIds: ids,
          conversationId: turn.conversationId,
          reason: String(turn.lease.reason?.message ?? ""),
        });
        return;
      }
      if (error instanceof RateLimitedError) {
        // The provider's limit, not the envelopes' fault: back at the pause's end, no attempt counted.
        log.warn("worker.rate_limited", { envelopeIds: ids, until: error.until.toISOString() });
        await deferEnvelopes(this.deps.db, ids, error.until, error.message);
        return;
      }
      const attempts = Math.max(...turn.envelopes.map((e) => e.attempts));
      if (workKinds[turn.kind].retry === "backoff" && attempts < this.deps.maxAttempts) {
        const at = new Date(this.now().getTime() + this.deps.backoffMs(attempts));
        log.warn("worker.retry", { envelopeIds: ids, attempts, error: message });
        for (const id of ids) await retryEnvelopeLater(this.deps.db, id, at, message);
      } else {
        log.error("worker.failed", { envelopeIds: ids, attempts, error: message });
        for (const id of ids)
          await endEnvelope(
            this.deps.db,
            id,
            { status: "failed", error: `gave up after ${attempts} attempts: ${message}` },
            turn.conversationId,
          );
      }
    }
  }

  /**
   * Sets the timer to `at` if that is sooner than the one set (or, after a drain,
   * replaces it: the drain saw everything that is due later). Never sleeps longer
   * than the safety poll, which also runs housekeeping.
   */
  private wakeAt(at: number, replace = false) {
    if (this.stopped) return;
    const now = this.now().getTime();
    const poll = this.deps.pollMs ?? SAFETY_POLL_MS;
    const target = Math.min(Math.max(at, now + 10), now + poll);
    if (!replace && target >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = target;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.kick();
    }, target - now);
    this.timer.unref?.();
  }

  /** Housekeeping (fork timeouts, stale sends) at most every few seconds, however busy the queue is. */
  private housekeep(now: number) {
    if (!this.deps.onTick || now - this.housekeptAt < Math.min(this.deps.pollMs ?? SAFETY_POLL_MS, HOUSEKEEPING_MS)) return;
    this.housekeptAt = now;
    // Started by the drain, but not the queue's own work: its writes (fork summaries, timeouts) wait their turn like any arriving now.
    this.housekeeping = withArrival(now, () => this.deps.onTick!()).catch((error) => log.error("worker.tick_failed", { error }));
  }
}
