import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineCases, telegramCases } from "../fixtures/platform-updates";
import { databases, hasPostgres, POSTGRES_SKIP_REASON } from "../helpers/db";
import { LINE_SECRET, usePlatformApp } from "../helpers/platform-app";
import { receiveWebhook } from "@/lib/inbound/receive-webhook";

/**
 * Property test: take valid updates from the fixture corpus and damage them the way
 * a buggy client, a future Bot API or a stranger would — drop a field, give one the
 * wrong type, a huge number, or control characters (U+0000 included) — and post
 * them. Never a 5xx; a refusal leaves the database as it was; an acceptance writes
 * whole rows only (every stored message has its envelope, at most one per update);
 * in a LINE batch, the good event next to a damaged one is always stored.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

type Json = unknown;
type Path = (string | number)[];

function paths(value: Json, prefix: Path = []): Path[] {
  if (!value || typeof value !== "object") return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
}

function mutate(value: Json, path: Path, replace: (old: Json) => Json | typeof DROP): Json {
  const copy = structuredClone(value) as Record<string | number, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  const next = replace(node[last]);
  if (next === DROP) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = next;
  return copy;
}
const DROP = Symbol("drop");

const controlText = fc.string({
  unit: fc.constantFrom("\u0000", "\u0001", "\u0007", "\u001b", "\u007f", "\u202e", "\ud800", "a", "\n"),
  maxLength: 20,
});
/** What replaces the chosen field. */
const damage = fc.oneof(
  fc.constant(() => DROP),
  fc.constantFrom<Json>(null, true, "", "x", 0, -1, [], {}, [1], { a: 1 }).map((v) => () => v),
  fc.constantFrom(2 ** 53 + 1, 2 ** 64, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 1.5).map((v) => () => v),
  controlText.map((s) => (old: Json) => (typeof old === "string" ? `${old.slice(0, 3)}${s}${old.slice(3)}` : s)),
);

const telegramMessages = telegramCases.filter((c) => c.expect.result !== "rejected").map((c) => c.update);
const lineMessages = lineCases.filter((c) => c.event.type === "message").map((c) => c.event);

describe.each(databases)("mutated platform updates on $name", ({ name, open }) => {
  const h = usePlatformApp(open);

  const snapshot = async () => ({
    updates: await h.t.db.prisma.inboundUpdate.count(),
    messages: await h.t.db.prisma.message.count({ where: { direction: "inbound" } }),
    envelopes: await h.t.db.prisma.envelope.count({ where: { from: { startsWith: "channel:" } } }),
    conversations: await h.t.db.prisma.conversation.count(),
  });

  let updateId = 10_000_000;
  it(`damaged Telegram updates: never a 5xx, never a partial write (${RUNS} runs)`, async () => {
    const statuses: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...telegramMessages), fc.nat(), damage, fc.boolean(), async (original, pick, replace, keepId) => {
        const fresh = { ...original, update_id: ++updateId };
        const all = paths(fresh).filter((p) => !(keepId && p[0] === "update_id"));
        const body = mutate(fresh, all[pick % all.length], replace);
        const before = await snapshot();
        const response = await h.t.post(body);
        const after = await snapshot();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        expect(response.status, JSON.stringify(body).slice(0, 300)).toBeLessThan(500);
        if (response.status >= 400) expect(after).toEqual(before);
        const added = after.messages - before.messages;
        expect(added).toBeGreaterThanOrEqual(0);
        expect(added).toBeLessThanOrEqual(1);
        expect(after.envelopes - before.envelopes).toBe(added);
        // No U+0000 ever reaches a row (PostgreSQL refuses it; SQLite readers choke on it).
        if (added) {
          const last = await h.t.db.prisma.message.findFirstOrThrow({ where: { direction: "inbound" }, orderBy: { id: "desc" } });
          expect(JSON.stringify(last)).not.toContain("\\u0000");
        }
      }),
      { numRuns: RUNS },
    );
    expect(Object.keys(statuses).every((s) => Number(s) < 500)).toBe(true);
  }, 300_000);

  let lineSeq = 0;
  it(`LINE batches with a damaged event: the good event is stored, never a 5xx (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...lineMessages), fc.nat(), damage, async (original, pick, replace) => {
        lineSeq += 1;
        const damaged = { ...structuredClone(original), webhookEventId: `fuzz-bad-${lineSeq}` };
        const all = paths(damaged);
        const bad = mutate(damaged, all[pick % all.length], replace);
        const good = {
          ...lineMessages[0],
          webhookEventId: `fuzz-good-${lineSeq}`,
          message: { id: `fuzz-${lineSeq}`, type: "text", text: `good ${lineSeq}` },
        };
        const body = JSON.stringify({ destination: "U0", events: [bad, good] });
        const signature = createHmac("sha256", LINE_SECRET).update(body).digest("base64");
        const response = await receiveWebhook(
          h.t.app.inbound,
          "line",
          new Request("http://localhost/api/webhooks/line", {
            method: "POST",
            headers: { "content-type": "application/json", "x-line-signature": signature },
            body,
          }),
        );
        expect(response.status, body.slice(0, 300)).toBe(200);
        expect(await h.t.db.prisma.message.count({ where: { platformMessageId: `fuzz-${lineSeq}` } })).toBe(1);
      }),
      { numRuns: RUNS },
    );
  }, 300_000);

  // The one skipped entry a run without PostgreSQL shows, with its reason.
  if (name === "sqlite" && !hasPostgres) it.skipIf(!hasPostgres)(`PostgreSQL variant: ${POSTGRES_SKIP_REASON}`, () => {});
});
