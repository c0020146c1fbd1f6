// Dashboard thread page with a 5,000-message reply tree: time from navigation to
// the first tree nodes painted in Chromium, against the conversations list page
// (same server, same run) as baseline. Debian's Chromium, production build.
import { chromium } from "@playwright/test";
import Database from "better-sqlite3";
import { sqlitePath } from "../lib/db/migrations.mjs";
import { startServer } from "./server.mts";
import { report, summarize } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3952);
const SIZE = Number(process.env.BENCH_TREE_SIZE ?? 5000);
const RUNS = 7;

const server = await startServer(PORT, { ADMIN_USERNAME: "admin", ADMIN_PASSWORD: "bench-password-1" });
let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const chromiumBrowser = browser;
  // A tree where each message replies to one of the earlier ones (three children each).
  const db = new Database(sqlitePath(server.databaseUrl));
  db.pragma("busy_timeout = 10000");
  const now = new Date().toISOString();
  const conversationId = Number(
    db
      .prepare(
        `INSERT INTO "Conversation" (channel, platformChatId, type, title, generation, createdAt, updatedAt, lastMessageAt) VALUES ('telegram','tree','group','Big tree',0,?,?,?)`,
      )
      .run(now, now, now).lastInsertRowid,
  );
  const insert = db.prepare(
    `INSERT INTO "Message" (conversationId, direction, senderKind, senderName, senderIsBot, text, platformMessageId, replyToMessageId, threadId, mentionsBot, sentAt, createdAt) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 0, ?, ?)`,
  );
  let rootId = 0;
  db.transaction(() => {
    const ids: number[] = [];
    for (let i = 0; i < SIZE; i++) {
      const parent = i === 0 ? null : ids[Math.floor((i - 1) / 3)];
      const agent = i % 2 === 1;
      const id = Number(
        insert.run(
          conversationId,
          agent ? "outbound" : "inbound",
          agent ? "agent" : "user",
          agent ? "main" : `User ${i % 7}`,
          `tree message ${i}`,
          String(i + 1),
          parent,
          null,
          new Date(Date.parse("2026-01-01") + i * 1000).toISOString(),
          now,
        ).lastInsertRowid,
      );
      ids.push(id);
    }
    rootId = ids[0];
    const thread = Number(
      db
        .prepare(`INSERT INTO "Thread" (conversationId, rootMessageId, messageCount, lastMessageAt, createdAt) VALUES (?, ?, ?, ?, ?)`)
        .run(conversationId, rootId, SIZE, now, now).lastInsertRowid,
    );
    db.prepare(`UPDATE "Message" SET threadId = ? WHERE conversationId = ?`).run(thread, conversationId);
  })();
  db.close();

  const login = await fetch(`${server.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "admin", password: "bench-password-1" }),
  });
  const cookies = login.headers.getSetCookie().map((c) => {
    const [pair] = c.split(";");
    const [name, value] = pair.split("=");
    return { name, value, url: server.base };
  });

  async function measure(path: string, selector: string) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const context = await chromiumBrowser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies(cookies);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`${server.base}${path}`);
      await page.locator(selector).first().waitFor({ state: "visible", timeout: 60_000 });
      // One more frame, so the nodes are painted, not just in the DOM.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      if (i > 0) samples.push(performance.now() - started);
      await context.close();
    }
    return summarize(samples);
  }
  const list = await measure("/", "[data-testid=conversation-row]");
  const tree = await measure(`/messages/${rootId}`, "[data-testid=tree-node]");
  report({
    bench: "thread page",
    case: `${SIZE.toLocaleString("en")}-message reply tree, first paint`,
    metric: "p50",
    value: Math.round(tree.p50),
    unit: "ms",
    baseline: Math.round(list.p50),
    ratio: Math.round((tree.p50 / list.p50) * 100) / 100,
    target: "< 1500 ms",
    met: tree.p50 < 1500,
    note: `baseline: conversations list; max ${Math.round(tree.max)} ms over ${RUNS} loads`,
  });
} finally {
  // Stopped even when Chromium failed to start, so no server is left on the port.
  await browser?.close();
  await server.stop();
}
