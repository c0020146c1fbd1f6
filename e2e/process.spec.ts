import { spawn, execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { get } from "node:http";
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";

const TOKEN = "123456789:AAH-e2e-secret-bot-token_value";
const WEBHOOK_SECRET = "e2e-process-webhook-secret";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** A Bot API that accepts connections and never answers. */
async function blackHole() {
  const sockets: Socket[] = [];
  const server = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** Every descendant of a process, from ps. */
function descendants(pid: number): number[] {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number));
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of table) {
      if (parent !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portOpen = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

test("npm start: serves at once with the Bot API hanging, guards setup with a code from its log, honours HOSTNAME, and stops cleanly on SIGTERM", async () => {
  test.setTimeout(120_000);
  const hole = await blackHole();
  const port = await freePort();
  rmSync("data/e2e-process.db", { force: true });
  let output = "";
  const npm = spawn("npm", ["start"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      SKIP_BUILD: "1",
      DATABASE_URL: "file:./data/e2e-process.db",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      TELEGRAM_API_ROOT: hole.url,
      ADMIN_PASSWORD: "",
      LLM_PROVIDER: "",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  npm.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  npm.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  try {
    // The server answers while getMe hangs: health within seconds of listening, the channel degraded.
    await expect.poll(() => output, { timeout: 60_000 }).toContain("listening on 127.0.0.1");
    // The first request loads the app (cold; slow on a busy machine), far below one getMe attempt's
    // 10 s bound times its retries; the old start awaited getMe forever. A warm request is quick.
    const cold = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(20_000) });
    expect(cold.status).toBe(200);
    const started = Date.now();
    const health = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(5_000) });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "degraded", database: { ok: true }, channels: { telegram: { ok: false } } });
    // Idle connections outlive a proxy's 60 s, so a reused one is never reset under the client.
    const keepAlive = await new Promise<unknown>((resolve, reject) =>
      get(`${base}/api/health`, (res) => {
        res.resume();
        resolve(res.headers["keep-alive"]);
      }).on("error", reject),
    );
    expect(keepAlive).toBe("timeout=65");
    // The webhook answers 503 at once (Telegram delivers again), it does not wait on getMe.
    const webhook = await fetch(`${base}/api/webhooks/telegram`, {
      method: "POST",
      // Telegram's Bot API server sends Accept-Encoding with every update.
      headers: {
        "content-type": "application/json",
        "x-telegram-bot-api-secret-token": WEBHOOK_SECRET,
        "accept-encoding": "gzip, deflate",
      },
      body: JSON.stringify({
        update_id: 1,
        message: { message_id: 1, date: 1, chat: { id: 1, type: "private" }, from: { id: 1, is_bot: false, first_name: "A" }, text: "hi" },
      }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(webhook.status).toBe(503);
    // A platform's answer is a few bytes, sent as they are; the rest of the server still compresses.
    expect(webhook.headers.get("content-encoding")).toBeNull();
    expect(health.headers.get("content-encoding")).toBe("gzip");

    // HOSTNAME=127.0.0.1: not on another loopback address.
    expect(await portOpen("127.0.0.1", port)).toBe(true);
    expect(await portOpen("127.0.0.2", port)).toBe(false);

    // The setup page makes a password: browsers offer to generate one, not to fill in a stored one.
    const setupPage = await (await fetch(`${base}/setup`)).text();
    const passwordField = /<input[^>]*type="password"[^>]*>/.exec(setupPage)?.[0];
    expect(passwordField).toMatch(/autocomplete="new-password"/i);
    // Setup needs the code printed in the log; 20 concurrent setups with it make one operator.
    const code = /First-run setup[\s\S]*?\n\s+([A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})\n/.exec(output)?.[1];
    expect(code).toBeTruthy();
    const setup = (name: string, withCode: string) =>
      fetch(`${base}/api/auth/setup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, password: "a-long-password", code: withCode }),
      });
    expect((await setup("intruder", "AAAAA-BBBBB-CCCCC")).status).toBe(403);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => setup(`admin${i}`, code!)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 403)).toBe(true);
    // Setup signs the new operator in: its session opens the console without a second sign-in.
    const created = responses.find((r) => r.status === 201)!;
    const cookie = created.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(cookie).toMatch(/sb_session=/);
    const console = await fetch(`${base}/`, { headers: { cookie }, redirect: "manual" });
    expect(console.status).toBe(200);
    expect(await console.text()).toMatch(/Signed in as (<!-- -->)?admin\d+/);

    // SIGTERM to the npm process: every process ends and the port closes.
    const tree = [npm.pid!, ...descendants(npm.pid!)];
    expect(tree.length).toBeGreaterThan(1);
    const exited = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
    npm.kill("SIGTERM");
    await exited;
    await expect.poll(() => tree.filter(alive), { timeout: 25_000 }).toEqual([]);
    expect(await portOpen("127.0.0.1", port)).toBe(false);
    expect(output).toContain("server.stopped");
    // The bot token appears nowhere in what the server printed.
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain("AAH-e2e-secret");
  } finally {
    for (const pid of [npm.pid!, ...descendants(npm.pid!)]) if (alive(pid)) process.kill(pid, "SIGKILL");
    hole.close();
    rmSync("data/e2e-process.db", { force: true });
    rmSync("data/e2e-process.db-wal", { force: true });
    rmSync("data/e2e-process.db-shm", { force: true });
  }
});
