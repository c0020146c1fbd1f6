import { randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/client";
import {
  countOperators,
  createOperator,
  createSession,
  deleteSession,
  findLiveSession,
  findOperatorByName,
} from "../db/operators";
import { AppError } from "../errors";
import { hashPassword, verifyPassword } from "./password";
import { RateLimiter } from "./rate-limit";

export const SESSION_COOKIE = "sb_session";
export const CSRF_COOKIE = "sb_csrf";
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export const credentialsSchema = z.object({
  name: z.string().trim().min(1, "enter a user name").max(64),
  password: z.string().min(1, "enter a password").max(256),
});
export const setupSchema = z.object({
  name: z.string().trim().min(1).max(64).regex(/^[a-zA-Z0-9_.-]+$/, "letters, digits, _ . - only"),
  password: z.string().min(10, "use at least 10 characters").max(256),
});

const loginLimiter = new RateLimiter(10, 15 * 60 * 1000);

export type Operator = { id: number; name: string };
export type Caller = { operator: Operator; via: "session" | "token"; csrfToken?: string };

/** Creates the first operator from ADMIN_PASSWORD when there is none yet. */
export async function ensureBootstrapOperator(db: Db, name: string, password: string | undefined) {
  if (!password || (await countOperators(db)) > 0) return;
  await createOperator(db, { name, passwordHash: await hashPassword(password) }).catch(() => {
    // Another instance created it first: fine.
  });
}

/** First-run setup: allowed only while no operator exists. */
export async function setupFirstOperator(db: Db, input: z.infer<typeof setupSchema>) {
  if ((await countOperators(db)) > 0) throw new AppError("forbidden", "setup is already done; sign in instead");
  await createOperator(db, { name: input.name, passwordHash: await hashPassword(input.password) });
}

/** Verifies credentials (rate-limited per client and name) and opens a session. */
export async function signIn(db: Db, input: z.infer<typeof credentialsSchema>, clientKey: string, now = new Date()) {
  const key = `${clientKey}|${input.name.toLowerCase()}`;
  const wait = loginLimiter.hit(key, now.getTime());
  if (wait > 0) throw new AppError("rate_limited", `too many attempts; try again in ${wait} s`);
  const operator = await findOperatorByName(db, input.name);
  // Hash even for unknown names so response time does not reveal which names exist.
  const ok = operator
    ? await verifyPassword(input.password, operator.passwordHash)
    : (await verifyPassword(input.password, "scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="), false);
  if (!operator || !ok) throw new AppError("unauthorized", "wrong user name or password");
  loginLimiter.reset(key);
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await createSession(db, { operatorId: operator.id, token, csrfToken, expiresAt });
  return { token, csrfToken, expiresAt, operator: { id: operator.id, name: operator.name } };
}

export async function signOut(db: Db, token: string | undefined) {
  if (token) await deleteSession(db, token);
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

/**
 * Who is calling: an operator's session cookie or the API token. Cookie-authenticated
 * mutations must echo the session's CSRF token in a header (double submit), and
 * their Origin, when sent, must be this host.
 */
export async function authenticate(
  db: Db,
  request: Request,
  options: { apiToken?: string; now?: Date },
): Promise<Caller> {
  const authorization = request.headers.get("authorization");
  if (authorization?.startsWith("Bearer ")) {
    const given = authorization.slice(7).trim();
    if (options.apiToken && safeEqual(given, options.apiToken)) return { operator: { id: 0, name: "api" }, via: "token" };
    throw new AppError("unauthorized", "invalid API token");
  }
  const token = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  const session = token ? await findLiveSession(db, token, options.now ?? new Date()) : null;
  if (!session) throw new AppError("unauthorized", "sign in first");
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method)) {
    const header = request.headers.get(CSRF_HEADER) ?? "";
    if (!safeEqual(header, session.csrfToken)) throw new AppError("forbidden", "missing or invalid CSRF token");
    const origin = request.headers.get("origin");
    const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
    if (origin && host && new URL(origin).host !== host) throw new AppError("forbidden", "cross-origin request refused");
  }
  return { operator: session.operator, via: "session", csrfToken: session.csrfToken };
}
