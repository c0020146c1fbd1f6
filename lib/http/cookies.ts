import { CSRF_COOKIE, SESSION_COOKIE } from "../auth/operators";

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
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin) return true;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  return new URL(origin).host === host;
}

export function clientKey(request: Request): string {
  return request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? request.headers.get("x-real-ip") ?? "local";
}
