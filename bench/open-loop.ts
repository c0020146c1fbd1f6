import { Agent, request } from "node:http";
import { percentile } from "./stats";

/**
 * Open-loop load at a fixed rate: request i is due at start + i / rate, sent then
 * whether or not earlier ones have answered, and its latency is counted from when
 * it was due (so a stall is not hidden by the generator waiting on it).
 *
 * Why not autocannon's `overallRate`: it lets each connection send its whole
 * per-second quota back to back and then pause until the next second
 * (lib/httpClient.js resets a counter every 1,000 ms), so "half the maximum rate"
 * is really full speed for half of every second, and its p99 measures that burst.
 */
export async function openLoop(options: {
  url: string;
  rate: number;
  durationS: number;
  headers: Record<string, string>;
  body: () => string;
}) {
  const { url, rate, durationS } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(url);
  const total = Math.round(rate * durationS);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const body = options.body();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: { ...options.headers, "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            latencies.push(performance.now() - due);
            if (res.statusCode && res.statusCode < 300) ok++;
            else failed++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
  const inFlight: Promise<void>[] = [];
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && started + (next * 1000) / rate <= now) inFlight.push(send(started + (next++ * 1000) / rate));
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (next * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    sent: total,
    ok,
    failed,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
}
