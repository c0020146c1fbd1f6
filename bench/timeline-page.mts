// A conversation's timeline page with 100,000 messages, in Debian's Chromium on a
// production build:
// - first paint: navigation to the newest message painted in view;
// - older page: scrolled to the top, time until the page before it is fetched
//   and rendered (the UI's own path: onScroll → ?before= → rows in the DOM).
// Baseline for both: the same on a 200-message conversation, same server, same run.
import type { Page } from "@playwright/test";
import { launchChromium, operatorCookies } from "./browser.ts";
import { seedConversation } from "./seed.ts";
import { startServer } from "./server.mts";
import { report, summarize } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3952);
const SIZE = Number(process.env.BENCH_TIMELINE_MESSAGES ?? 100_000);
const SMALL = 200;
const RUNS = 7;
const OLDER_LOADS = 3;
const OLDER_PAGES = 5;

const server = await startServer(PORT, { ADMIN_USERNAME: "admin", ADMIN_PASSWORD: "bench-password-1" });
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
try {
  browser = await launchChromium();
  const chromium = browser;
  const seeded = Date.now();
  const big = seedConversation(server.databaseUrl, SIZE, "timeline-big");
  const small = seedConversation(server.databaseUrl, SMALL, "timeline-small");
  const seedSeconds = Math.round((Date.now() - seeded) / 1000);
  const cookies = await operatorCookies(server.base);

  /** Opens the conversation; the time until its newest message is painted inside the timeline's view. */
  async function open(conversation: { conversationId: number; lastId: number }) {
    const context = await chromium.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(cookies);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${server.base}/conversations/${conversation.conversationId}`);
    await page.waitForFunction(
      (id) => {
        const view = document.querySelector("[data-testid=timeline]");
        const row = view?.querySelector(`[data-message-id="${id}"]`);
        if (!view || !row) return false;
        const a = view.getBoundingClientRect();
        const b = row.getBoundingClientRect();
        return b.height > 0 && b.bottom > a.top && b.top < a.bottom;
      },
      conversation.lastId,
      { polling: "raf", timeout: 60_000 },
    );
    // One more frame, so it is painted, not just in the DOM.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    return { page, ms: performance.now() - started };
  }

  async function firstPaint(conversation: { conversationId: number; lastId: number }) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const { page, ms } = await open(conversation);
      if (i > 0) samples.push(ms);
      await page.context().close();
    }
    return summarize(samples);
  }

  async function olderPages(conversation: { conversationId: number; lastId: number }, loads: number, pages: number) {
    const samples: number[] = [];
    for (let i = 0; i < loads + 1; i++) {
      const { page } = await open(conversation);
      await page.waitForTimeout(300);
      for (let k = 0; k < pages; k++) {
        const ms = await olderPage(page);
        if (i > 0) samples.push(ms);
      }
      await page.context().close();
    }
    return summarize(samples);
  }

  const paintSmall = await firstPaint(small);
  const paintBig = await firstPaint(big);
  report({
    bench: "timeline view",
    case: `${SIZE.toLocaleString("en")}-message conversation, first paint (newest message in view)`,
    metric: "p50",
    value: Math.round(paintBig.p50),
    unit: "ms",
    baseline: Math.round(paintSmall.p50),
    ratio: Math.round((paintBig.p50 / paintSmall.p50) * 100) / 100,
    target: "< 1000 ms",
    met: paintBig.p50 < 1000,
    note: `baseline: a ${SMALL}-message conversation; max ${Math.round(paintBig.max)} ms over ${RUNS} loads; seeding took ${seedSeconds} s`,
  });

  const olderSmall = await olderPages(small, OLDER_PAGES, 1);
  const olderBig = await olderPages(big, OLDER_LOADS, OLDER_PAGES);
  report({
    bench: "timeline view",
    case: `${SIZE.toLocaleString("en")}-message conversation, older page through the UI (scroll to top → rows rendered)`,
    metric: "p50",
    value: Math.round(olderBig.p50),
    unit: "ms",
    baseline: Math.round(olderSmall.p50),
    ratio: Math.round((olderBig.p50 / olderSmall.p50) * 100) / 100,
    target: "< 200 ms",
    met: olderBig.p50 < 200,
    note: `baseline: the one older page of a ${SMALL}-message conversation; p99 ${Math.round(olderBig.p99)} ms over ${olderBig.n} pages (${OLDER_PAGES} in a row per load)`,
  });
} finally {
  // Stopped even when Chromium failed to start, so no server is left on the port.
  await browser?.close();
  await server.stop();
}

/**
 * Scrolls the timeline to the top and waits until a message older than the
 * cursor the page asked for (`?before=`) is in the DOM, then one frame.
 * A string, so the bundler's helpers do not leak into the page.
 */
function olderPage(page: Page): Promise<number> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const view = document.querySelector("[data-testid=timeline]");
    let before = null;
    const seen = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const m = /\\/messages\\?.*before=(\\d+)/.exec(e.name);
        if (m) before = Number(m[1]);
      }
    });
    seen.observe({ type: "resource" });
    const started = performance.now();
    view.scrollTop = 0;
    function check() {
      if (before !== null)
        for (const row of view.querySelectorAll("[data-message-id]"))
          if (Number(row.getAttribute("data-message-id")) < before) {
            seen.disconnect();
            return requestAnimationFrame(() => resolve(performance.now() - started));
          }
      if (performance.now() - started > 30000) return reject(new Error("no older page loaded"));
      requestAnimationFrame(check);
    }
    requestAnimationFrame(check);
  })`);
}
