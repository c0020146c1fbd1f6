// Thread retrieval of a 10,000-envelope chain: one recursive query against
// following replyToEnvelopeId one query at a time (the source design's way).
// SQLite, then PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../lib/db/database";
import { envelopeChainByPointers, envelopeThread } from "../lib/db/envelope-threads";
import { migrate } from "../lib/db/migrations.mjs";
import { benchPostgres, POSTGRES_SKIPPED } from "./postgres.ts";
import { report, time } from "./stats.ts";

const length = Number(process.env.BENCH_THREAD_LENGTH ?? 10_000);
async function bench(label: string, url: string) {
  const db = await openDb(url);
  try {
    await db.prisma.envelope.createMany({
      data: Array.from({ length }, (_, i) => ({
        id: i + 1,
        from: "agent:a",
        to: "agent:b",
        text: `hop ${i}`,
        metadata: {},
        replyToEnvelopeId: i === 0 ? null : i,
        threadRootId: i === 0 ? null : 1,
      })),
    });
    const cte = await time(() => envelopeThread(db, length), 10, 2);
    const pointers = await time(() => envelopeChainByPointers(db, length), 3, 1);
    const thread = (await envelopeThread(db, length))!;
    if (thread.chain.length !== length || thread.tree.length !== length) throw new Error("thread bench: wrong result");
    report({
      bench: "thread",
      case: `${label}: ${length.toLocaleString("en")}-envelope chain, one query`,
      metric: "p50",
      value: cte.p50,
      unit: "ms",
      baseline: pointers.p50,
      ratio: Math.round((pointers.p50 / cte.p50) * 10) / 10,
      ...(label === "SQLite"
        ? { target: "< 100 ms and ≥ 20× faster than pointer-chasing", met: cte.p50 < 100 && pointers.p50 / cte.p50 >= 20 }
        : {}),
      note: `pointer-chasing p50 ${pointers.p50} ms; ratio = pointer-chasing / one query`,
    });
  } finally {
    await db.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "bench-thread-"));
const url = `file:${join(dir, "bench.db")}`;
await migrate(url);
await bench("SQLite", url);
rmSync(dir, { recursive: true, force: true });

const postgres = await benchPostgres();
if (!postgres) console.error(POSTGRES_SKIPPED);
else {
  try {
    await bench("PostgreSQL", postgres.url);
  } finally {
    await postgres.drop();
  }
}
