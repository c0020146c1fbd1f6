/**
 * Sign-in throttling, in memory per instance, counting failures (each attempt counts
 * as one from the moment it is checked until a correct password takes it back):
 *
 * - per client (its socket address, see lib/http/client-address.mjs): at most
 *   `clientLimit` failures per window, whatever the names tried, so guessing many
 *   user names (existing or not) from one place is capped;
 * - per client and name: at most `pairLimit` failures per window;
 * - per account, from everywhere: after `accountFreeFailures` failures each attempt
 *   on that name waits a growing delay (capped) before it is checked. A delay, not a
 *   refusal: a stranger can slow the real operator down by seconds but never lock
 *   them out, and a correct password from a client that has not failed gets in.
 *
 * A client whose sign-in succeeded is remembered as known-good for KNOWN_GOOD_MS:
 * its next sign-ins are hashed first under a flood (lib/auth/password.ts).
 *
 * Refused attempts cost no password hashing. With several instances the budget is
 * per instance (docs/DEPLOYMENT.md).
 */
export type ThrottleOptions = {
  windowMs: number;
  clientLimit: number;
  pairLimit: number;
  accountFreeFailures: number;
  accountBaseDelayMs: number;
  accountMaxDelayMs: number;
};

export const defaultThrottleOptions: ThrottleOptions = {
  windowMs: 15 * 60_000,
  clientLimit: 20,
  pairLimit: 5,
  accountFreeFailures: 5,
  accountBaseDelayMs: 250,
  accountMaxDelayMs: 5_000,
};

type Counter = { count: number; resetAt: number };

/** How long a client that signed in stays known-good (in memory, per instance). */
export const KNOWN_GOOD_MS = 30 * 24 * 3600_000;

export type ThrottleDecision = { ok: true; delayMs: number } | { ok: false; retryAfterSeconds: number };

export class SignInThrottle {
  private readonly clients = new Map<string, Counter>();
  private readonly pairs = new Map<string, Counter>();
  private readonly accounts = new Map<string, Counter>();
  private readonly knownGood = new Map<string, number>();

  constructor(private readonly options: ThrottleOptions = defaultThrottleOptions) {}

  /** Before checking a password: refuse (client or pair over budget) or wait `delayMs` first. */
  check(client: string, name: string, now = Date.now()): ThrottleDecision {
    const key = name.toLowerCase();
    for (const [counter, limit] of [
      [this.live(this.clients, client, now), this.options.clientLimit],
      [this.live(this.pairs, `${client}|${key}`, now), this.options.pairLimit],
    ] as const) {
      if (counter && counter.count >= limit)
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((counter.resetAt - now) / 1000)) };
    }
    const account = this.live(this.accounts, key, now);
    const over = (account?.count ?? 0) - this.options.accountFreeFailures;
    const delayMs = over <= 0 ? 0 : Math.min(this.options.accountBaseDelayMs * 2 ** (over - 1), this.options.accountMaxDelayMs);
    // Counted as a failure now, before the password is checked: attempts sent all at once
    // would otherwise each pass before any had failed. success() takes it back.
    this.failure(client, name, now);
    return { ok: true, delayMs };
  }

  /** Counts a failed attempt (check() already counts each attempt it lets through). */
  failure(client: string, name: string, now = Date.now()) {
    const key = name.toLowerCase();
    this.bump(this.clients, client, now);
    this.bump(this.pairs, `${client}|${key}`, now);
    this.bump(this.accounts, key, now);
  }

  /** A correct password clears that client's and that account's record. */
  success(client: string, name: string) {
    const key = name.toLowerCase();
    this.pairs.delete(`${client}|${key}`);
    this.accounts.delete(key);
    this.clients.delete(client);
    this.knownGood.delete(client);
    this.knownGood.set(client, Date.now() + KNOWN_GOOD_MS);
    // Oldest first (insertion order): past the bound the oldest are forgotten.
    while (this.knownGood.size > 10_000) this.knownGood.delete(this.knownGood.keys().next().value!);
  }

  /** Whether this client signed in successfully within KNOWN_GOOD_MS. */
  isKnownGood(client: string, now = Date.now()): boolean {
    return (this.knownGood.get(client) ?? 0) > now;
  }

  private live(map: Map<string, Counter>, key: string, now: number): Counter | undefined {
    const entry = map.get(key);
    if (entry && entry.resetAt <= now) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }

  private bump(map: Map<string, Counter>, key: string, now: number) {
    const entry = this.live(map, key, now);
    if (entry) entry.count += 1;
    else map.set(key, { count: 1, resetAt: now + this.options.windowMs });
    if (map.size > 50_000) for (const [k, v] of map) if (v.resetAt <= now || map.size > 50_000) map.delete(k);
  }
}
