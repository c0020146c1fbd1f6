import parsePrometheusTextFormat from "parse-prometheus-text-format";

export type ExpositionSample = { name: string; labels: Record<string, string>; value: number };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(${LABEL}(?:,${LABEL})*)?\\})? (-?[0-9.eE+-]+|[Nn][Aa][Nn]|[+-][Ii][Nn][Ff])(?: -?\\d+)?$`);
const COMMENT = new RegExp(`^# (HELP|TYPE) (${NAME})(?: (.*))?$`);
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

/**
 * Reads the Prometheus text exposition format strictly: every line a HELP or TYPE
 * comment or a sample, every sample's family declared with a TYPE, a histogram's
 * buckets cumulative and its +Inf bucket equal to its count. Throws on the first
 * violation. (The npm parser beside it reads families, but loses histogram labels.)
 */
export function parseExposition(text: string): ExpositionSample[] {
  parsePrometheusTextFormat(text);
  const types = new Map<string, string>();
  const samples: ExpositionSample[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const comment = COMMENT.exec(line);
    if (comment) {
      if (comment[1] === "TYPE") {
        if (!TYPES.has(comment[3] ?? "")) throw new Error(`unknown type: ${line}`);
        if (types.has(comment[2]!)) throw new Error(`TYPE declared twice: ${line}`);
        types.set(comment[2]!, comment[3]!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`invalid exposition line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    const name = match[1]!;
    const family = [name, name.replace(/_(bucket|sum|count|total|created)$/, "")].find((n) => types.has(n));
    if (!family) throw new Error(`sample without a TYPE: ${line}`);
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case.
    const word = match[3]!.toLowerCase();
    const value = word === "+inf" ? Infinity : word === "-inf" ? -Infinity : word === "nan" ? NaN : Number(word);
    if (Number.isNaN(value) && word !== "nan") throw new Error(`invalid value: ${line}`);
    samples.push({ name, labels, value });
  }
  for (const [family, type] of types) {
    if (type !== "histogram") continue;
    const series = new Map<string, { buckets: { le: number; value: number }[]; count?: number }>();
    for (const s of samples.filter((x) => x.name.startsWith(`${family}_`))) {
      const { le, ...rest } = s.labels;
      const key = JSON.stringify(rest);
      const entry = series.get(key) ?? { buckets: [] };
      series.set(key, entry);
      if (s.name === `${family}_bucket`) entry.buckets.push({ le: le === "+Inf" ? Infinity : Number(le), value: s.value });
      if (s.name === `${family}_count`) entry.count = s.value;
    }
    for (const [key, { buckets, count }] of series) {
      const sorted = [...buckets].sort((a, b) => a.le - b.le);
      if (sorted.some((b, i) => i > 0 && b.value < sorted[i - 1]!.value)) throw new Error(`${family}${key}: buckets not cumulative`);
      if (sorted.at(-1)?.le !== Infinity || sorted.at(-1)?.value !== count)
        throw new Error(`${family}${key}: +Inf bucket is not the count`);
    }
  }
  return samples;
}

/** The value of the sample named `name` whose labels include `labels` (0 when absent). */
export function sampleValue(samples: ExpositionSample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}
