// The application in a child process, so a test can SIGKILL it mid-turn and start
// it again: createApp on DATABASE_URL with a plain HTTP server in front of the
// Telegram webhook handler. Prints "ready <port>" when listening.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { openDb } from "../../lib/db/database";
import { dbMetrics } from "../../lib/metrics/db";
import { parseEnv } from "../../lib/env";
import { createApp } from "../../lib/server/wiring";
import { receiveWebhook } from "../../lib/inbound/receive-webhook";

const env = parseEnv(process.env);
// The server's connection settings: WAL checkpoints on a worker thread.
const app = await createApp(env, await openDb(env.DATABASE_URL, { backgroundCheckpoints: true, observer: dbMetrics }), {
  leaseMs: Number(process.env.TEST_LEASE_MS ?? 2000),
  staleSendMs: Number(process.env.TEST_LEASE_MS ?? 2000),
  backoffMs: () => 50,
  pollMs: 300,
});
await app.telegram.identity();
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const response = await receiveWebhook(
    app.inbound,
    "telegram",
    new Request(`http://localhost${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) }),
  );
  res.writeHead(response.status, { "content-type": "application/json" });
  res.end(await response.text());
});
server.listen(0, "127.0.0.1", () => console.log(`ready ${(server.address() as AddressInfo).port}`));
