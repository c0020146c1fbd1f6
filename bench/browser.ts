import { chromium, type Browser } from "@playwright/test";

/** Debian's Chromium as the e2e tests run it (no sandbox as root, no calls out on a closed network). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

/** Signs in as the bench operator; the session cookies, ready for `context.addCookies`. */
export async function operatorCookies(base: string, name = "admin", password = "bench-password-1") {
  const login = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`);
  return login.headers.getSetCookie().map((c) => {
    const [pair] = c.split(";");
    const [cookieName, value] = pair.split("=");
    return { name: cookieName, value, url: base };
  });
}
