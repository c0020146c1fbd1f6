import { randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Database } from "../db/database";
import {
  countOperators,
  createFirstOperator,
  createSession,
  deleteSession,
  findLiveSession,
  findOperatorByName,
  listOperators,
  updateDisplayName,
} from "../db/operators";
import { type BotScope, botScopeOf } from "./bot-scope";
import { asRole, type Role } from "./roles";
import { AppError, notFound } from "../errors";
import { publish } from "../events/bus";
import { skeletons } from "../context/sanitize";
import { settingsFor } from "../settings/reader";
import { hashPassword, verifyPassword } from "./password";
import { SignInThrottle } from "./throttle";

export const SESSION_COOKIE = "sb_session";
export const CSRF_COOKIE = "sb_csrf";
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export const credentialsSchema = z.object({
  name: z.string().trim().min(1, "enter a user name").max(64),
  password: z.string().min(1, "enter a password").max(256),
});
export const setupSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[a-zA-Z0-9_.-]+$/, "letters, digits, _ . - only"),
  password: z.string().min(10, "use at least 10 characters").max(256),
  /** The one-time setup code from the server log. */
  code: z.string().trim().min(1, "enter the setup code from the server log").max(64),
});

/**
 * What the setup endpoint reads first: the shape only. The code is checked before
 * the name and password rules, so a wrong code is answered as a wrong code (403),
 * whatever else is wrong, and the rules are shown only to whoever holds the code.
 */
export const setupRequestSchema = z.object({
  name: z.string().max(256),
  password: z.string().max(256),
  code: z.string().max(64),
});

const throttle = new SignInThrottle();

/** `displayName`: what the console calls them (null: the sign-in name); the API token has none. */
export type Operator = { id: number; name: string; displayName?: string | null };

/** How the console names an operator: the display name where one is set, as on their messages. */
export const shownName = (operator: { name: string; displayName?: string | null }) => operator.displayName ?? operator.name;
/**
 * Who is calling. `role` is read from the database on every request, so a
 * demotion applies at once; the API token is an admin. `sessionId` is set for
 * sessions (the event stream checks it again while it stays open).
 */
export type Caller = {
  operator: Operator;
  role: Role;
  via: "session" | "token";
  csrfToken?: string;
  sessionId?: number;
  /** The bots whose conversations the caller sees (lib/auth/bot-scope.ts); null = every bot. Read on every request too. */
  bots?: BotScope;
};

/** Creates the first operator from ADMIN_PASSWORD when there is none yet (another instance may win: fine). */
export async function ensureBootstrapOperator(db: Database, name: string, password: string | undefined) {
  if (!password || (await findOperatorByName(db, name))) return;
  await createFirstOperator(db, { name, passwordHash: await hashPassword(password) });
}

/** A fresh first-run setup code: 15 characters from an unambiguous alphabet (75 bits), grouped for reading. */
export function newSetupCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const raw = [...randomBytes(15)].map((b) => alphabet[b % alphabet.length]).join("");
  return raw.match(/.{5}/g)!.join("-");
}

/** Case and grouping do not matter for our A-Z/2-9 codes; a code with other characters (SETUP_CODE) is compared as typed. */
const canonicalCode = (code: string) => {
  const grouped = code.trim().toUpperCase();
  return /^[A-Z0-9\s-]+$/.test(grouped) ? grouped.replace(/[\s-]/g, "") : code.trim();
};

/**
 * First-run setup: needs the one-time code from the server log (whoever reaches a
 * fresh server first must also read its log), and creates the operator only while
 * none exists, atomically (one operator whatever the concurrency).
 */
export async function setupFirstOperator(db: Database, request: z.infer<typeof setupRequestSchema>, setupCode: string) {
  if (!request.code.trim()) throw new AppError("bad_request", "enter the setup code from the server log");
  const given = canonicalCode(request.code);
  if (!given || !safeEqual(given, canonicalCode(setupCode))) {
    throw new AppError("forbidden", "wrong setup code; it is printed in the server log at start");
  }
  const parsed = setupSchema.safeParse(request);
  if (!parsed.success) throw new AppError("bad_request", "invalid request body", parsed.error.issues);
  const input = parsed.data;
  const created = await createFirstOperator(db, { name: input.name, passwordHash: await hashPassword(input.password) });
  if (!created) throw new AppError("forbidden", "setup is already done; sign in instead");
  return input;
}

/** Whether first-run setup is still to do: no operator exists (the pages send a visitor to /setup, else to /login). */
export async function setupPending(db: Database): Promise<boolean> {
  return (await countOperators(db)) === 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Verifies credentials (throttled per client, per client and name, and per account) and opens a session. */
export async function signIn(
  db: Database,
  input: z.infer<typeof credentialsSchema>,
  clientKey: string,
  now = new Date(),
  userAgent: string | null = null,
) {
  const decision = throttle.check(clientKey, input.name, now.getTime());
  if (!decision.ok) throw new AppError("rate_limited", `too many attempts; try again in ${decision.retryAfterSeconds} s`);
  if (decision.delayMs) await sleep(decision.delayMs);
  const operator = await findOperatorByName(db, input.name);
  // Hash even for unknown names so response time does not reveal which names exist.
  const hash = operator?.passwordHash ?? "scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  const ok =
    (await verifyPassword(input.password, hash, { preferred: throttle.isKnownGood(clientKey, now.getTime()) })) && Boolean(operator);
  if (!operator || !ok || operator.removedAt) {
    // Already counted by throttle.check().
    throw new AppError("unauthorized", "wrong user name or password");
  }
  throttle.success(clientKey, input.name);
  // Said only to whoever knows the password.
  if (operator.disabledAt) throw new AppError("forbidden", "this account is disabled; ask an admin to enable it");
  return openSession(db, operator, now, userAgent);
}

/** A new session for an operator whose identity is already proven (a password, an accepted invitation). */
export async function openSession(db: Database, operator: { id: number; name: string; role: string }, now: Date, userAgent: string | null) {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await createSession(db, { operatorId: operator.id, token, csrfToken, expiresAt, userAgent: userAgent?.slice(0, 200) ?? null });
  return { token, csrfToken, expiresAt, operator: { id: operator.id, name: operator.name, role: asRole(operator.role) } };
}

/**
 * Ends the session of `token`; returns its id (null when there was none), so its live
 * streams here can end at once; other instances hear of it by the `operators` event.
 */
export async function signOut(db: Database, token: string | undefined): Promise<number | null> {
  if (!token) return null;
  const id = await deleteSession(db, token);
  publish(db, { type: "operators" });
  return id;
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * True when the request's Origin, if sent, names this host. `Origin: null` (sandboxed
 * frames, privacy-sensitive redirects) and anything unparsable are cross-origin.
 */
export function originMatchesHost(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin) return true;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  if (!URL.canParse(origin)) return false;
  return new URL(origin).host === host;
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return undefined; // not valid percent-encoding: no such cookie, so 401, never a 500
    }
  }
  return undefined;
}

/**
 * Who is calling: an operator's session cookie or the API token. Cookie-authenticated
 * mutations must echo the session's CSRF token in a header (double submit), and
 * their Origin, when sent, must be this host.
 */
export async function authenticate(db: Database, request: Request, options: { apiToken?: string; now?: Date }): Promise<Caller> {
  const authorization = request.headers.get("authorization");
  if (authorization?.startsWith("Bearer ")) {
    const given = authorization.slice(7).trim();
    if (options.apiToken && safeEqual(given, options.apiToken))
      return { operator: { id: 0, name: "api" }, role: "admin", via: "token", bots: null };
    throw new AppError("unauthorized", "invalid API token");
  }
  const token = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  const session = token ? await findLiveSession(db, token, options.now ?? new Date()) : null;
  if (!session) throw new AppError("unauthorized", "sign in first");
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method)) {
    const header = request.headers.get(CSRF_HEADER) ?? "";
    if (!safeEqual(header, session.csrfToken)) throw new AppError("forbidden", "missing or invalid CSRF token");
    if (!originMatchesHost(request)) throw new AppError("forbidden", "cross-origin request refused");
  }
  const { id, name, displayName, role, botIds } = session.operator;
  return {
    operator: { id, name, displayName },
    role: asRole(role),
    via: "session",
    csrfToken: session.csrfToken,
    sessionId: session.id,
    bots: botScopeOf(asRole(role), botIds),
  };
}

/** The operator signed in with this session cookie token, with their role; null without a live session (for pages). */
export async function operatorOfSession(db: Database, token: string | undefined, now = new Date()) {
  const session = token ? await findLiveSession(db, token, now) : null;
  if (!session) return null;
  const role = asRole(session.operator.role);
  const { id, name, displayName } = session.operator;
  return { id, name, displayName, role, bots: botScopeOf(role, session.operator.botIds) };
}

/**
 * Sets or clears an operator's display name. A signed-in operator changes their
 * own, an admin anyone's; so does the API token (an administrator's scripts).
 * Every open console then refetches the names (a settings event).
 */
export async function changeDisplayName(db: Database, caller: Caller, id: number, displayName: string | null) {
  if (caller.role !== "admin" && caller.operator.id !== id)
    throw new AppError("forbidden", `signed in as ${caller.operator.name}: you can change only your own display name`);
  if (displayName !== null) await refuseNameOfAnother(db, id, displayName);
  const operator = await updateDisplayName(db, id, displayName);
  if (!operator) throw notFound("operator");
  publish(db, { type: "settings" });
  return operator;
}

/** Names only the console's own parties wear: the agent, the API token's caller, the system. */
const RESERVED_DISPLAY_NAMES = ["agent", "bot", "assistant", "system", "api", "operator", "on-call", "inbox"];

/**
 * A display name must not read as someone else's: another operator's sign-in or
 * display name, the agent's name, or a label the console gives its own parties.
 * Compared as a reader sees them: case, accents, look-alike letters (Cyrillic а
 * for a), spaces and . _ - between letters do not make a name another.
 */
export async function refuseNameOfAnother(db: Database, id: number | null, displayName: string) {
  const [operators, { agentName }] = await Promise.all([listOperators(db), settingsFor(db)]);
  const wanted = readings(displayName);
  const taken = (name: string) => [...readings(name)].some((reading) => wanted.has(reading));
  const other = operators.find((o) => o.id !== id && (taken(o.name) || (o.displayName !== null && taken(o.displayName))));
  if (other) throw new AppError("conflict", `"${displayName}" reads as another operator's name; choose another`);
  const own = operators.find((o) => o.id === id);
  if ((taken(agentName) || RESERVED_DISPLAY_NAMES.some(taken)) && !(own && taken(own.name))) {
    throw new AppError("conflict", `"${displayName}" reads as the agent's or the system's name; choose another`);
  }
}

const readings = (name: string) => new Set(skeletons(name.replace(/[\s._-]+/gu, "")).map((s) => s.toLowerCase()));
