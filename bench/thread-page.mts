// Dashboard thread page with a 5,000-message reply tree, in Debian's Chromium on
// a production build:
// - first paint: navigation to the first tree nodes painted, against the
//   conversations list page (same server, same run) as baseline;
// - pan and zoom: frame times while the tree is zoomed out, dragged and zoomed in,
//   one input event per frame, against the same gestures on a 200-message tree
//   (big enough to open at zoom 1 too, so both show about as many nodes).
import type { Browser, Page } from "@playwright/test";
import { launchChromium, operatorCookies } from "./browser.ts";
import { seedReplyTree } from "./seed.ts";
import { startServer } from "./server.mts";
import { percentile, report, summarize } from "./stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 3952);
const SIZE = Number(process.env.BENCH_TREE_SIZE ?? 5000);
const SMALL = 200;
const RUNS = 7;
const FRAME_RUNS = 3;

const server = await startServer(PORT, { ADMIN_USERNAME: "admin", ADMIN_PASSWORD: "bench-password-1" });
const browsers: Browser[] = [];
try {
  const paintBrowser = await launchChromium();
  browsers.push(paintBrowser);
  // Frames unthrottled (no 60 Hz vsync): the time between two animation frames is then
  // the work of one frame, not a multiple of 16.7 ms.
  const frameBrowser = await launchChromium(["--disable-frame-rate-limit", "--disable-gpu-vsync"]);
  browsers.push(frameBrowser);

  const big = seedReplyTree(server.databaseUrl, SIZE, "tree");
  const small = seedReplyTree(server.databaseUrl, SMALL, "small-tree");
  const cookies = await operatorCookies(server.base);

  async function open(browser: Browser, path: string, selector: string) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(cookies);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(`${server.base}${path}`);
    await page.locator(selector).first().waitFor({ state: "visible", timeout: 60_000 });
    // One more frame, so the nodes are painted, not just in the DOM.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    return { page, ms: performance.now() - started };
  }

  async function firstPaint(path: string, selector: string) {
    const samples: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const { page, ms } = await open(paintBrowser, path, selector);
      if (i > 0) samples.push(ms);
      await page.context().close();
    }
    return summarize(samples);
  }
  const list = await firstPaint("/", "[data-testid=conversation-row]");
  const tree = await firstPaint(`/messages/${big.rootId}`, "[data-testid=tree-node]");
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

  // Pan and zoom, opened at a message in the tree's densest part (the last level).
  async function frames(messageId: number) {
    const samples: number[] = [];
    for (let run = 0; run < FRAME_RUNS + 1; run++) {
      const { page } = await open(frameBrowser, `/messages/${messageId}`, "[data-testid=tree-node]");
      await page.waitForTimeout(500);
      const times = await gesture(page);
      if (run > 0) samples.push(...times);
      await page.context().close();
    }
    samples.sort((a, b) => a - b);
    return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples.at(-1)! };
  }
  const bigFrames = await frames(big.lastId - Math.floor(SIZE / 6));
  const smallFrames = await frames(small.lastId - 10);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  report({
    bench: "thread page",
    case: `${SIZE.toLocaleString("en")}-message reply tree, pan and zoom frame (Chromium, software rendering)`,
    metric: "p95",
    value: r1(bigFrames.p95),
    unit: "ms",
    baseline: r1(smallFrames.p95),
    ratio: Math.round((bigFrames.p95 / smallFrames.p95) * 100) / 100,
    target: "< 16 ms",
    met: bigFrames.p95 < 16,
    note: `baseline: the same gestures on a ${SMALL}-message tree; p50 ${r1(bigFrames.p50)} ms (baseline ${r1(smallFrames.p50)} ms), max ${r1(bigFrames.max)} ms over ${bigFrames.n} frames: zoom out to 0.25, drag 1,400 px across and 700 down, zoom back in, one event per frame, ${FRAME_RUNS} runs`,
  });
} finally {
  // Stopped even when Chromium failed to start, so no server is left on the port.
  for (const browser of browsers) await browser.close();
  await server.stop();
}

/**
 * Wheel-zooms out, drags the pane, wheel-zooms in: one event dispatched in each
 * animation frame (as Chromium aligns real input to frames), d3-zoom handling it
 * as it would a real one. Returns the time from each frame to the next, in ms.
 * A string, so the bundler's helpers do not leak into the page.
 */
function gesture(page: Page): Promise<number[]> {
  return page.evaluate(`new Promise((resolve) => {
    const pane = document.querySelector(".react-flow__pane");
    const box = pane.getBoundingClientRect();
    let x = box.left + box.width / 2;
    let y = box.top + box.height / 2;
    const ZOOM_OUT = 60, PAN = 120, ZOOM_IN = 60;
    const times = [];
    let frame = 0;
    let last = 0;
    const mouse = (type) => pane.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window, clientX: x, clientY: y, button: 0, buttons: type === "mouseup" ? 0 : 1 }));
    const wheel = (deltaY) => pane.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, view: window, clientX: x, clientY: y, deltaY, deltaMode: 0 }));
    function step(now) {
      if (frame > 0) times.push(now - last);
      last = now;
      if (frame < ZOOM_OUT) wheel(16.6);
      else if (frame === ZOOM_OUT) mouse("mousedown");
      else if (frame < ZOOM_OUT + PAN) { x += 12; y += 6; mouse("mousemove"); }
      else if (frame === ZOOM_OUT + PAN) mouse("mouseup");
      else if (frame < ZOOM_OUT + PAN + ZOOM_IN) wheel(-16.6);
      else return resolve(times);
      frame++;
      requestAnimationFrame(step);
    }
    requestAnimationFrame(step);
  })`);
}
