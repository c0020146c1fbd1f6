/**
 * Under a burst, the chats already taken in are answered before more are taken in.
 *
 * One thread runs both the webhooks (parse, store, acknowledge) and the turns'
 * own work (claim, context, the model request, the reply). When a burst leaves
 * more work than the thread keeps up with, the event loop interleaves every new
 * webhook with every turn, so all of them slow down together: each accepted
 * chat waits behind the next hundred webhooks, which wait behind it. So while
 * the thread is saturated and `limit` or more turns are at work here (claimed,
 * not waiting for the model), a webhook waits before it is stored and
 * acknowledged, in arrival order, at most `maxWaitMs`. Nothing is refused or
 * lost: the platform holds its further updates until it has an answer (Telegram
 * sends at most max_connections at once and retries what fails). A thread with
 * time to spare never holds a webhook, however many turns wait on the platform.
 */
export type WebhookAdmissionOptions = {
  /** Turns at work on this thread now: claimed, not waiting for a model call. */
  busyTurns: () => number;
  /** Whether the thread has no time to spare right now (its event loop's recent utilization). */
  saturated: () => boolean;
  /** From this many busy turns on a saturated thread, webhooks wait. */
  limit: number;
  /** The longest one webhook waits, whatever the load: its acknowledgement is never held longer. */
  maxWaitMs: number;
  /** How often the waiting webhooks look again (one timer for all of them). */
  recheckMs?: number;
  now?: () => number;
};

type Waiter = { since: number; resolve: (waitedMs: number) => void };

export class WebhookAdmission {
  private readonly waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: WebhookAdmissionOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Resolves when this webhook may go on, with how long it waited (0 when there is room). */
  admit(): Promise<number> {
    if (this.waiting.length === 0 && this.room() > 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      this.waiting.push({ since: this.now(), resolve });
      this.schedule();
    });
  }

  /** Webhooks waiting now. */
  get waitingCount() {
    return this.waiting.length;
  }

  /**
   * How many webhooks may go now. A webhook becomes a turn only after the burst debounce,
   * so the room below the limit paces them rather than counts them.
   */
  private room(): number {
    if (!this.options.saturated()) return Number.POSITIVE_INFINITY;
    return this.options.limit - this.options.busyTurns();
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.release();
    }, this.options.recheckMs ?? 10);
  }

  private release() {
    const now = this.now();
    let room = this.room();
    // Those that waited the longest allowed go whatever the room.
    while (this.waiting.length > 0 && (room > 0 || now - this.waiting[0].since >= this.options.maxWaitMs)) {
      const waiter = this.waiting.shift()!;
      room -= 1;
      waiter.resolve(now - waiter.since);
    }
    if (this.waiting.length > 0) this.schedule();
  }
}
