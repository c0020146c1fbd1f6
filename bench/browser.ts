import { chromium, type Browser } from "@playwright/test";
import { chromiumLaunchOptions } from "../e2e/support/chromium";

/** Debian's Chromium with the e2e tests' options (e2e/support/chromium.ts), plus `extraArgs`. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ ...chromiumLaunchOptions, args: [...chromiumLaunchOptions.args, ...extraArgs] });
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
