/** The request header the proxy sets to the page's path (and query) for the dashboard layout. */
export const REQUEST_PATH_HEADER = "x-switchboard-path";

/**
 * Where sign-in returns to: the page that was asked for, only as a path of this
 * site. Anything else (another origin, `//host`, `/\host`, a scheme, control
 * characters, the sign-in pages themselves, the API) is refused, so a link to
 * `/login?next=…` can never send an operator elsewhere (an open redirect).
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000) return null;
  if (!value.startsWith("/") || value.startsWith("//")) return null;
  // Backslashes read as slashes in browsers (`/\evil.example`), control characters are stripped by them.
  if (value.includes("\\") || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return null;
  const base = "http://return.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  if (/^\/(login|setup|api)(\/|$)/.test(url.pathname)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's address for a page that needs a session: `/login?next=<path>` (just `/login` for the home page). */
export function loginPathFor(path: string | null | undefined): string {
  const next = safeReturnPath(path);
  return next && next !== "/" ? `/login?next=${encodeURIComponent(next)}` : "/login";
}
