import { randomUUID } from "node:crypto";
import type { Db } from "../db/client";
import { claimEnvelope, findClaimable, finishEnvelope, nextDueAt, retryEnvelopeLater } from "../db/envelopes";
import { log } from "../log";

export type WorkerDeps = {
  db: Db;
  /** Runs one claimed envelope; throws to ask for a retry. */
  run: (envelope: { id: number; to: string; messageId: number | null }) => Promise<void>;
  /** How long a claim holds before another worker may take the envelope over. */
  leaseMs: number;
  maxAttempts: number;
  /** Delay before attempt n+1 after n failed attempts. */
  backoffMs: (attempts: number) => number;
  /** Housekeeping on every timer tick (fork idle timeouts and expiry). */
  onTick?: () => Promise<void>;
  /** PostgreSQL: serialize claims per conversation across instances with an advisory lock. */
  advisoryLock?: boolean;
  /** The longest sleep between ticks when nothing is due (default 30 s). */
  pollMs?: number;
  /** Conversations processed at once (each one strictly in order). */
  concurrency?: number;
  now?: () => Date;
};

const SAFETY_POLL_MS = 30_000;

/**
 * Drains due envelopes after each webhook (kick) and at the next due time (a
 * timer, not busy polling). Each conversation's envelopes run one at a time, in
 * order; different conversations run in parallel. Claims are conditional updates
 * with a lease, so several instances can share one database and a crashed
 * worker's envelope is taken over once its lease runs out.
 */
export class EnvelopeWorker {
  readonly id = `worker-${randomUUID().slice(0, 8)}`;
  private readonly busy = new Set<number | null>();
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();

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
    await Promise.allSettled([...this.running]);
  }

  /** Something new may be due: drain soon (coalesced). */
  kick() {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((error) => log.error("worker.drain_failed", { error }))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        } else void this.schedule();
      });
  }

  /**
   * Resolves when nothing is running and nothing is due within `horizonMs`
   * (retries back off briefly): for tests and graceful shutdown.
   */
  async idle(horizonMs = 1_000): Promise<void> {
    for (;;) {
      await this.draining;
      await Promise.allSettled([...this.running]);
      if (this.draining || this.running.size > 0) continue;
      const soon = await findClaimable(this.deps.db, new Date(this.now().getTime() + horizonMs), 1);
      if (soon.length === 0) return;
      this.kick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async drain() {
    const limit = this.deps.concurrency ?? 4;
    const now = this.now();
    // A few candidates per free slot: enough to skip busy conversations, without
    // a query per pending envelope on every kick.
    const candidates = await findClaimable(this.deps.db, now, (limit - this.running.size) * 4);
    for (const c of candidates) {
      if (this.stopped || this.running.size >= limit) break;
      if (this.busy.has(c.conversationId)) continue;
      if (!(await claimEnvelope(this.deps.db, c, this.id, now, this.deps.leaseMs, { advisoryLock: this.deps.advisoryLock ?? false }))) continue;
      this.busy.add(c.conversationId);
      const task = this.execute({ id: c.id, to: c.to, messageId: c.messageId, attempts: c.attempts + 1 }).finally(() => {
        this.busy.delete(c.conversationId);
        this.running.delete(task);
        this.kick();
      });
      this.running.add(task);
    }
  }

  private async execute(envelope: { id: number; to: string; messageId: number | null; attempts: number }) {
    try {
      await this.deps.run(envelope);
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (envelope.attempts < this.deps.maxAttempts) {
        const at = new Date(this.now().getTime() + this.deps.backoffMs(envelope.attempts));
        log.warn("worker.retry", { envelopeId: envelope.id, attempts: envelope.attempts, error: message });
        await retryEnvelopeLater(this.deps.db, envelope.id, at, message);
      } else {
        log.error("worker.failed", { envelopeId: envelope.id, attempts: envelope.attempts, error: message });
        await finishEnvelope(this.deps.db, envelope.id, { status: "failed", error: `gave up after ${envelope.attempts} attempts: ${message}` });
      }
    }
  }

  private async schedule() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const now = this.now();
    const next = await nextDueAt(this.deps.db, now).catch(() => null);
    const poll = this.deps.pollMs ?? SAFETY_POLL_MS;
    const wait = next ? Math.min(Math.max(next.getTime() - now.getTime(), 10), poll) : poll;
    this.timer = setTimeout(() => {
      this.deps.onTick?.().catch((error) => log.error("worker.tick_failed", { error }));
      this.kick();
    }, wait);
    this.timer.unref?.();
  }
}
