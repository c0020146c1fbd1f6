// Context build time (load + build + prompt) against the size of the history:
// 1k, 100k and 1M stored messages in one conversation, SQLite. The cost must not
// grow with history (index-backed queries). Baseline: the 1k case, same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contextNeeds } from "../lib/context/assemble";
import { turnPrompt } from "../lib/context/turn-prompt";
import { openDb } from "../lib/db/database";
import { loadContextFacts } from "../lib/context/load-facts";
import { findStoredMessage } from "../lib/db/context-input";
import { migrate } from "../lib/db/migrations.mjs";
import { defaultSettings } from "../lib/settings/schema";
import { seedConversation } from "./seed.ts";
import { report, time } from "./stats.ts";

const sizes = (process.env.BENCH_CONTEXT_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const results: Record<number, number> = {};
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "bench-context-"));
  const url = `file:${join(dir, "bench.db")}`;
  await migrate(url);
  const { lastId, conversationId } = seedConversation(url, size);
  const db = await openDb(url);
  // The newest message replies to one near the start: the worst case for the neighbour queries.
  const target = lastId - size + 21;
  await db.prisma.message.update({ where: { id: lastId }, data: { replyToMessageId: target } });
  const current = (await findStoredMessage(db, lastId))!;
  const conversation = { id: conversationId, channel: "telegram", type: "private", title: "bench" };
  const needs = contextNeeds(defaultSettings);
  const stats = await time(async () => {
    const facts = await loadContextFacts(db, { conversation, current, needs });
    return turnPrompt(facts, defaultSettings);
  }, 300);
  results[size] = stats.p50;
  const check = await loadContextFacts(db, { conversation, current, needs });
  if (check.session.length !== 10 || check.targetNeighbours.length !== 6 || conversationId < 1)
    throw new Error("context bench: unexpected context shape");
  report({
    bench: "context",
    case: `${size.toLocaleString("en")} messages`,
    metric: "p50",
    value: stats.p50,
    unit: "ms",
    note: `p99 ${stats.p99} ms`,
  });
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
const smallest = results[sizes[0]];
const largest = results[sizes.at(-1)!];
report({
  bench: "context",
  case: `${sizes.at(-1)!.toLocaleString("en")} vs ${sizes[0].toLocaleString("en")}`,
  metric: "p50 ratio",
  value: largest,
  unit: "ms",
  baseline: smallest,
  ratio: Math.round((largest / smallest) * 100) / 100,
  target: "< 5 ms at 1M and < 1.5× the 1k time",
  met: largest < 5 && largest / smallest < 1.5,
});
