/** Percentiles and the result line every benchmark prints for scripts/bench.mjs. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    mean: round(mean),
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
}

export const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Times `fn` `iterations` times after `warmup` runs; milliseconds per call. */
export async function time(fn: () => Promise<unknown>, iterations: number, warmup = Math.min(20, iterations)) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

export type BenchRow = {
  bench: string;
  case: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  met?: boolean;
  note?: string;
};

/** One result row, on a line of its own for the runner to collect. */
export function report(row: BenchRow) {
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(row)}\n`);
}
