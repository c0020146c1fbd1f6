import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

import { AppError } from "../errors";

const scryptRaw = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/**
 * scrypt runs on libuv's small thread pool (4 threads), which file and DNS work
 * share, and each hash is ~50 ms of a core: unbounded sign-in floods slow every
 * webhook. At most MAX_RUNNING hashes run at once (SIGN_IN_HASH_CONCURRENCY, default
 * 1: a real operator signs in rarely) and MAX_WAITING wait; beyond that, "busy" (429).
 * Sign-ins from a client that signed in before (known-good, lib/auth/throttle.ts)
 * wait in a lane of their own, served first and not turned away by a flood of
 * strangers filling the other.
 */
const MAX_RUNNING = Math.max(1, Number(process.env.SIGN_IN_HASH_CONCURRENCY) || 1);
const MAX_WAITING = 32;
const work = { running: 0, peak: 0, waiting: [] as (() => void)[], preferred: [] as (() => void)[] };

async function scrypt(password: string, salt: Buffer, keylen: number, preferred = false): Promise<Buffer> {
  if (work.running >= MAX_RUNNING) {
    const lane = preferred ? work.preferred : work.waiting;
    if (lane.length >= MAX_WAITING) throw new AppError("rate_limited", "sign-in is busy; try again in a few seconds");
    await new Promise<void>((resolve) => lane.push(resolve));
  } else work.running += 1;
  work.peak = Math.max(work.peak, work.running);
  try {
    return await scryptRaw(password, salt, keylen);
  } finally {
    // Hand the slot straight to the next waiter (known-good clients first), else free it.
    const next = work.preferred.shift() ?? work.waiting.shift();
    if (next) next();
    else work.running -= 1;
  }
}

/** How many hashes run now and the most that ever ran at once (tests, diagnostics). */
export const passwordWork = () => ({ running: work.running, peak: work.peak, waiting: work.waiting.length + work.preferred.length });

/** "scrypt$<salt b64>$<hash b64>" — node's scrypt, so no native dependency. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString("base64")}$${hash.toString("base64")}`;
}

/** `preferred`: the client signed in before; its check waits in the first lane. */
export async function verifyPassword(password: string, stored: string, options: { preferred?: boolean } = {}): Promise<boolean> {
  const [kind, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, options.preferred);
  return timingSafeEqual(actual, expected);
}
