// Context build time (load + build + prompt) against the size of the history:
// 1k, 100k and 1M stored messages in one conversation, SQLite. The cost must not
// grow with history (index-backed queries). Baseline: the 1k case, same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPrompt } from "../lib/context/prompt";
import { buildContext } from "../lib/context/build";
import { openDb } from "../lib/db/database";
import { findStoredMessage, loadContextInput } from "../lib/db/context-input";
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
  const conversation = { channel: "telegram", type: "private", title: "bench" };
  const stats = await time(async () => {
    const input = await loadContextInput(db, { current, settings: defaultSettings });
    const context = buildContext({ current, ...input, settings: defaultSettings });
    return buildPrompt({ context, currentId: current.id, conversation, settings: defaultSettings });
  }, 300);
  results[size] = stats.p50;
  const check = await loadContextInput(db, { current, settings: defaultSettings });
  if (check.recent.length !== 10 || check.targetNeighbours.length !== 6 || conversationId < 1)
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
