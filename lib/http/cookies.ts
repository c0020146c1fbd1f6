import { CSRF_COOKIE, SESSION_COOKIE, originMatchesHost } from "../auth/operators";
import { clientKeyFor, PEER_HEADER_ENV } from "./client-address.mjs";

/** Set-Cookie values for a new session: the token httpOnly, the CSRF token readable by the page. */
export function sessionCookies(session: { token: string; csrfToken: string; expiresAt: Date }, secure: boolean): string[] {
  const common = `Path=/; SameSite=Lax; Expires=${session.expiresAt.toUTCString()}${secure ? "; Secure" : ""}`;
  return [`${SESSION_COOKIE}=${session.token}; HttpOnly; ${common}`, `${CSRF_COOKIE}=${session.csrfToken}; ${common}`];
}

export function clearedCookies(): string[] {
  const gone = "Path=/; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT";
  return [`${SESSION_COOKIE}=; HttpOnly; ${gone}`, `${CSRF_COOKIE}=; ${gone}`];
}

/** Secure cookies when served over HTTPS (directly or behind a TLS-terminating proxy). */
export function isSecure(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

/** Refuses cross-site form posts to the sign-in routes (login CSRF). */
export const sameOrigin = originMatchesHost;

/**
 * The throttling key of the caller: the address scripts/start.mjs read from the
 * socket (or from a trusted proxy's X-Forwarded-For, TRUST_PROXY) and put in a
 * header whose name is random per process. Client-sent forwarding headers are never
 * read here. Without that server (`next dev`, tests) every caller shares one key.
 */
export function clientKey(request: Request): string {
  const header = process.env[PEER_HEADER_ENV];
  const address = header ? request.headers.get(header) : null;
  return address ? clientKeyFor(address) : "unknown";
}
