import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { expect, test } from "./fixtures";

const PORT = Number(process.env.E2E_PORT ?? 3900);

test("pages carry a nonce CSP and the usual headers, and the dashboard runs with no CSP violation", async ({ page, dashboard }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/login");
  const headers = response!.headers();
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  // A fresh nonce per response.
  const again = (await page.request.get("/login")).headers()["content-security-policy"];
  expect(again).not.toBe(headers["content-security-policy"]);

  await dashboard.signIn();
  await dashboard.simulate("csp check", { firstName: "Cee", userId: 9393 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: csp check");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  await expect(page.getByTestId("message").first()).toBeVisible();
  await page.getByTestId("message").first().getByRole("link", { name: "Thread" }).click();
  await expect(page.getByTestId("thread-tree")).toBeVisible();
  // Every dashboard page, the detail pages too (the first envelope, turn and message exist after the simulated chat).
  // A page that does not exist too: the 404 page must carry the nonce like the others.
  for (const path of ["/", "/envelopes", "/envelopes/1", "/turns/1", "/messages/1", "/forks", "/settings", "/simulator", "/no-such-page"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
  }
  expect(violations).toEqual([]);
  const api = await page.request.get("/api/health");
  expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
});

test("malformed requests from strangers are 4xx, never 5xx", async ({ page, request }) => {
  // Origin: null (sandboxed frames, some redirects) on sign-in and setup.
  for (const path of ["/api/auth/login", "/api/auth/setup", "/api/auth/logout"]) {
    const r = await request.post(path, { headers: { origin: "null" }, data: { name: "admin", password: "x" } });
    expect(r.status(), path).toBe(403);
  }
  // A cookie that is not valid percent-encoding.
  const badCookie = await request.get("/api/v1/conversations", { headers: { cookie: "sb_session=%E0%A4%A" } });
  expect(badCookie.status()).toBe(401);
  const badCookiePage = await request.get("/conversations", { headers: { cookie: "sb_session=%zz; sb_csrf=%" }, maxRedirects: 0 });
  expect(badCookiePage.status()).toBeLessThan(500);

  // Signed in: Origin: null on a mutation, and a text/plain body (what a cross-site form can send).
  const dashboard = new (await import("./fixtures")).Dashboard(page);
  await dashboard.signIn();
  const csrf = (await page.context().cookies()).find((c) => c.name === "sb_csrf")!.value;
  const nullOrigin = await page.request.patch("/api/v1/settings", {
    data: { recencyWindow: 10 },
    headers: { "x-csrf-token": csrf, origin: "null" },
  });
  expect(nullOrigin.status()).toBe(403);
  const textPlain = await request.post("/api/v1/envelopes", {
    headers: { authorization: "Bearer e2e-api-token-0123456789", "content-type": "text/plain" },
    data: JSON.stringify({ from: "agent:main", to: "agent:helper", text: "x" }),
  });
  expect(textPlain.status()).toBe(415);
  // The agent's mail cannot be consumed by a GET.
  const receiveByGet = await request.get("/api/v1/envelopes/receive", { headers: { authorization: "Bearer e2e-api-token-0123456789" } });
  expect(receiveByGet.status()).toBe(405);
});

test("sign-in: a guesser rotating X-Forwarded-For is throttled by its address while the admin signs in from another", async ({
  page,
  dashboard,
}) => {
  // The attacker connects from 127.0.0.2 (another loopback address: another client to the server).
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    const body = JSON.stringify({ name: i % 3 ? `guess${i}` : "admin", password: `wrong-${i}` });
    statuses.push(
      await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: PORT,
            path: "/api/auth/login",
            method: "POST",
            localAddress: "127.0.0.2",
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
              "x-forwarded-for": `10.9.${i}.${i}`,
              "x-real-ip": `10.8.${i}.1`,
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
    );
  }
  expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(20);
  expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);
  // The real admin, from 127.0.0.1, signs in (perhaps after a short delay, never refused).
  await dashboard.signIn();
  await expect(page.getByRole("heading", { name: "Conversations" })).toBeVisible();
});

/** Sends raw bytes on a fresh socket; resolves once it is open. */
function rawSocket(bytes: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(PORT, "127.0.0.1", () => {
      socket.write(bytes);
      resolve({ socket, received: () => data, closed });
    });
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.once("error", reject);
  });
}

const upgradeRequest = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

test("an Upgrade request is answered as plain HTTP and its socket is not held: hundreds at once leave the server answering", async ({
  request: api,
}) => {
  test.setTimeout(120_000);
  // A client that sends an upgrade and hangs up: the server closes its side too (no CLOSE-WAIT).
  for (const path of ["/x", "/_next/static/chunks/missing.js", "/api/health", "/api/v1/conversations"]) {
    const { socket, received, closed } = await rawSocket(upgradeRequest(path));
    socket.end();
    await closed; // the test's timeout fails it when the server keeps the socket
    expect(received(), path).not.toMatch(/^HTTP\/1\.1 101/);
  }
  // Many open upgrade requests at once: each gets its plain answer, the server keeps answering others.
  const open = await Promise.all(Array.from({ length: 400 }, (_, i) => rawSocket(upgradeRequest(`/x${i}`))));
  try {
    await expect.poll(() => open.filter((s) => /^HTTP\/1\.1 (?!101)\d{3} /.test(s.received())).length, { timeout: 60_000 }).toBe(400);
    const health = await api.get("/api/health");
    expect(health.status()).toBe(200);
    // Clients that go away leave nothing behind: every socket is closed from the server's side too.
    for (const s of open) s.socket.end();
    await Promise.all(open.map((s) => s.closed));
  } finally {
    for (const s of open) s.socket.destroy();
  }
  expect((await api.get("/api/health")).status()).toBe(200);
});

test("a path with malformed percent-encoding is a 400, on the API and on pages", async ({ request: api }) => {
  for (const path of ["/api/v1/conversations/%E0%A4%A", "/conversations/%E0%A4%A", "/api/v1/messages/%zz/reply", "/%"]) {
    const { received, closed } = await rawSocket(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    await closed;
    expect(received(), path).toMatch(/^HTTP\/1\.1 400 /);
    expect(received(), path).toContain("malformed percent-encoding");
  }
  // Well-formed encodings still reach the app.
  expect((await api.get("/api/v1/conversations/%31")).status()).toBe(401);
});
