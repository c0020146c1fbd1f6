import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "@playwright/test";

/** Every file named `name` under dir, recursively. */
function find(dir: string, name: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? find(path, name) : entry === name ? [path] : [];
  });
}

const toUrl = (file: string, root: string) =>
  "/" +
  relative(root, file)
    .split("/")
    .slice(0, -1)
    .filter((part) => !part.startsWith("("))
    .map((part) => (part.startsWith("[...") ? "x/y" : part.startsWith("[") ? "1" : part))
    .join("/");

const apiRoutes = find("app/api/v1", "route.ts").flatMap((file) => {
  const source = readFileSync(file, "utf8");
  const methods = ["GET", "POST", "PATCH", "PUT", "DELETE"].filter((m) =>
    new RegExp(`export (const|async function) ${m}\\b|as ${m}\\b`).test(source),
  );
  return methods.map((method) => ({ method, url: `/api/v1${toUrl(file, "app/api/v1").replace(/^\/$/, "")}` }));
});
const pages = find("app/(dashboard)", "page.tsx").map((file) => toUrl(file, "app/(dashboard)"));

test("every /api/v1 route refuses an unauthenticated caller and a wrong token", async ({ request }) => {
  expect(apiRoutes.length).toBeGreaterThan(10);
  for (const { method, url } of apiRoutes) {
    const anonymous = await request.fetch(url, { method, data: method === "GET" ? undefined : {} });
    expect(anonymous.status(), `${method} ${url}`).toBe(401);
    const wrong = await request.fetch(url, {
      method,
      headers: { authorization: "Bearer not-the-token-0000000" },
      data: method === "GET" ? undefined : {},
    });
    expect(wrong.status(), `${method} ${url} with a wrong token`).toBe(401);
  }
});

test("every dashboard page sends a signed-out visitor to sign in", async ({ page }) => {
  expect(pages.length).toBeGreaterThan(5);
  for (const url of pages) {
    await page.goto(url);
    // Signed in, they come back to the page they asked for (the home page needs no `next`).
    const next = encodeURIComponent(url).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    await expect(page, url).toHaveURL(new RegExp(`/login(\\?next=${next})?$`));
  }
});

test("the API token works, and a cookie mutation without the CSRF header is refused", async ({ request, page }) => {
  const withToken = await request.get("/api/v1/openapi.json", { headers: { authorization: "Bearer e2e-api-token-0123456789" } });
  expect(withToken.status()).toBe(200);
  expect((await withToken.json()).openapi).toBe("3.1.0");

  await page.goto("/login");
  await page.getByLabel("User name").fill("admin");
  await page.getByLabel("Password").fill("e2e-password-123");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Conversations" })).toBeVisible();
  const noCsrf = await page.request.patch("/api/v1/settings", { data: { recencyWindow: 11 } });
  expect(noCsrf.status()).toBe(403);
  const cookies = await page.context().cookies();
  const csrf = cookies.find((c) => c.name === "sb_csrf")!.value;
  expect(cookies.find((c) => c.name === "sb_session")!.httpOnly).toBe(true);
  const crossSite = await page.request.patch("/api/v1/settings", {
    data: { recencyWindow: 11 },
    headers: { "x-csrf-token": csrf, origin: "https://evil.example" },
  });
  expect(crossSite.status()).toBe(403);
});

test("the browser bundle carries no server secrets", async ({ page }) => {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    if (response.url().endsWith(".js")) bodies.push(await response.text().catch(() => ""));
  });
  await page.goto("/login");
  await page.waitForLoadState("networkidle");
  expect(bodies.length).toBeGreaterThan(0);
  for (const secret of ["e2e-api-token-0123456789", "e2e-password-123", "DATABASE_URL"]) {
    expect(
      bodies.some((b) => b.includes(secret)),
      secret,
    ).toBe(false);
  }
});
