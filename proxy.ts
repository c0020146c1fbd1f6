import { NextResponse, type NextRequest } from "next/server";
import { pageCsp } from "./lib/http/csp";
import { REQUEST_PATH_HEADER } from "./lib/http/return-path";

/**
 * A Content-Security-Policy with a fresh nonce on every page: Next reads the
 * request's policy header and puts the nonce on its own scripts (the App Router
 * streams inline scripts, so a static `script-src 'self'` would break it).
 * Pages are dynamic anyway (sessions), so the nonce costs no static rendering.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = pageCsp(nonce, process.env.NODE_ENV !== "production");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  // The page asked for, so a page that needs a session can send the sign-in back to it (set here, never taken from the client).
  headers.set(REQUEST_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // API responses and /metrics get a static policy from next.config.mjs; assets need none.
  matcher: [{ source: "/((?!api/|metrics$|_next/static|_next/image|favicon.ico).*)" }],
};
