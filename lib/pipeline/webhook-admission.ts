import { AsyncResource } from "node:async_hooks";
import type { ChannelAdapter } from "../channels/types";
import { log } from "../log";

/**
 * Under a burst, the chats already taken in are answered before more are taken in.
 *
 * One thread runs both the webhooks (parse, store, acknowledge) and the turns'
 * own work (claim, context, the model request, the reply). When a burst leaves
 * more work than the thread keeps up with, the event loop interleaves every new
 * webhook with every turn, so all of them slow down together: each accepted
 * chat waits behind the next hundred webhooks, which wait behind it. So while
 * the thread is saturated and `limit` or more turns are at work here (claimed,
 * and waiting neither on the model nor on the platform), a verified Telegram
 * update waits before it is stored and acknowledged, in arrival order, at most
 * `maxWaitMs`. Nothing is refused or lost: Telegram keeps further updates until
 * it has an answer (it delivers at most max_connections at once and retries what
 * fails). A thread with time to spare never holds an update. LINE is left out:
 * it counts a webhook not answered within 2 s as failed.
 */
export type WebhookAdmissionOptions = {
  /** Turns at work on this thread now. */
  busyTurns: () => number;
  /** Whether the thread has no time to spare right now (its event loop's recent utilization). */
  saturated: () => boolean;
  /** From this many busy turns on a saturated thread, updates wait. */
  limit: number;
  /** The longest one update waits, whatever the load. */
  maxWaitMs: number;
  /** How often the waiting updates look again (one timer for all of them). */
  recheckMs?: number;
  now?: () => number;
};

type Waiter = { since: number; resolve: (waitedMs: number) => void };

export class WebhookAdmission {
  private readonly waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  // The recheck timer runs in a scope of its own, not in the first waiting request's context.
  private readonly scope = new AsyncResource("WebhookAdmission");

  constructor(private readonly options: WebhookAdmissionOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Resolves when this update may go on, with how long it waited (0 when there is room). */
  admit(): Promise<number> {
    if (this.waiting.length === 0 && this.room() > 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      this.waiting.push({ since: this.now(), resolve });
      this.schedule();
    });
  }

  /** Updates waiting now. */
  get waitingCount() {
    return this.waiting.length;
  }

  /**
   * How many updates may go now. An update becomes a turn only after the burst debounce,
   * so the room below the limit paces them rather than counts them.
   */
  private room(): number {
    try {
      if (!this.options.saturated()) return Number.POSITIVE_INFINITY;
      return this.options.limit - this.options.busyTurns();
    } catch (error) {
      // Never hold an update on a failed reading.
      log.error("webhook_admission.reading_failed", { error });
      return Number.POSITIVE_INFINITY;
    }
  }

  private schedule() {
    if (this.timer) return;
    this.timer = this.scope.runInAsyncScope(() =>
      setTimeout(() => {
        this.timer = null;
        this.release();
      }, this.options.recheckMs ?? 10),
    );
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

/**
 * The adapter with its sends counted while in flight (`inFlight.sends`): a turn waiting on
 * the platform (its latency, a 429's retry_after) is not at work on this thread.
 */
export function countSends<C extends ChannelAdapter>(adapter: C, inFlight: { sends: number }): C {
  const send = adapter.send.bind(adapter);
  adapter.send = async (request) => {
    inFlight.sends += 1;
    try {
      return await send(request);
    } finally {
      inFlight.sends -= 1;
    }
  };
  return adapter;
}
