import { createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { startTestApp } from "../../tests/helpers/app";
import { sqliteTestDb } from "../../tests/helpers/db";
import { receiveWebhook } from "../../lib/inbound/receive-webhook";

/**
 * Posts every payload of the public corpus through the webhooks (fresh update ids,
 * one database) and writes one line per payload: the HTTP status, the pipeline's
 * result and the stored row (sender, role, conversation and topic, reply target,
 * text). Review the output against the Bot API and LINE references.
 */
const dir = process.env.CORPUS_DIR ?? join(process.cwd(), "../shared/corpus");
const out = process.env.CORPUS_OUT ?? "/tmp/corpus-report.jsonl";
const pick = (row: Record<string, unknown> | null | undefined, keys: string[]) =>
  row ? Object.fromEntries(keys.filter((k) => k in row).map((k) => [k, row[k]])) : null;
const MESSAGE_KEYS = [
  "senderName",
  "senderIsBot",
  "senderRole",
  "text",
  "forwardedFrom",
  "viaBot",
  "platformMessageId",
  "platformTopicId",
  "replyToMessageId",
  "replyToPlatformId",
  "replyToText",
  "replyToSenderName",
  "replyToChatTitle",
  "quoteText",
  "mentionsBot",
  "editedAt",
  "deletedAt",
];
const CONVERSATION_KEYS = ["platformChatId", "type", "title", "topicName", "membership"];

type Item = { id: string; kind: "telegram" | "line"; body: Record<string, unknown> };

function corpus(): Item[] {
  const telegram = JSON.parse(readFileSync(join(dir, "telegram-updates.json"), "utf8")) as {
    id: string;
    update: Record<string, unknown>;
  }[];
  const raw = JSON.parse(readFileSync(join(dir, "line-events.json"), "utf8")) as {
    id: string;
    event?: Record<string, unknown>;
    message?: Record<string, unknown>;
  }[];
  // An item with only a message object goes into the group event its note names.
  const groupEvent = raw.find((e) => e.id === "linedocs_group_quote")?.event ?? {};
  const events = raw.map((e) => ({ id: e.id, event: e.event ?? { ...groupEvent, message: e.message } }));
  const python = JSON.parse(readFileSync(join(dir, "line-python-webhook.json"), "utf8")) as { events: Record<string, unknown>[] };
  return [
    ...telegram.map((t) => ({ id: `telegram/${t.id}`, kind: "telegram" as const, body: t.update })),
    ...events.map((e) => ({ id: `line/${e.id}`, kind: "line" as const, body: e.event })),
    ...python.events.map((event, i) => ({ id: `line/py_webhook_${i}_${event.type}`, kind: "line" as const, body: event })),
  ];
}

/**
 * The sources reuse ids (Telegram's examples are all message 1365 of one chat; the
 * LINE SDK tests share one webhookEventId), so each payload runs alone on a fresh
 * database (what it stores, judged on its own), then all of them in order on one
 * database (edits following their messages, topics following their creation).
 */
it("runs the corpus", async () => {
  const secret = "corpus-line-secret";
  const items = corpus();
  const lines: string[] = [];
  const run = async (t: Awaited<ReturnType<typeof startTestApp>>, item: Item, seq: number) => {
    if (item.kind === "telegram") {
      const response = await t.post({ ...item.body, update_id: seq });
      return { status: response.status, body: response.body?.result ?? response.body };
    }
    // A fresh webhookEventId, as a fresh update_id for Telegram.
    const body = JSON.stringify({ destination: "Ubot", events: [{ ...item.body, webhookEventId: `corpus-${seq}` }] });
    const signature = createHmac("sha256", secret).update(body).digest("base64");
    const response = await receiveWebhook(
      t.app.inbound,
      "line",
      new Request("http://localhost/api/webhooks/line", {
        method: "POST",
        headers: { "content-type": "application/json", "x-line-signature": signature },
        body,
      }),
    );
    const json = (await response.json().catch(() => null)) as { results?: unknown[] } | null;
    return { status: response.status, body: json?.results?.[0] ?? json };
  };
  const open = async () => {
    const testDb = await sqliteTestDb();
    const t = await startTestApp({
      db: testDb,
      model: null,
      env: { LINE_CHANNEL_SECRET: secret, LINE_CHANNEL_ACCESS_TOKEN: "x", LINE_API_ROOT: "http://127.0.0.1:9" },
    });
    return {
      t,
      close: async () => {
        await t.stop();
        await testDb.close();
      },
    };
  };
  const describeResult = async (t: Awaited<ReturnType<typeof startTestApp>>, id: string, mode: string, status: number, result: any) => {
    const db = t.db as any;
    const message = result?.messageId ? await db.prisma.message.findUnique({ where: { id: result.messageId } }) : null;
    const conversation = message ? await db.prisma.conversation.findUnique({ where: { id: message.conversationId } }) : null;
    return JSON.stringify({
      id,
      mode,
      status,
      result: pick(result, ["status", "answer", "reason", "membership", "found"]),
      conversation: pick(conversation, CONVERSATION_KEYS),
      message: pick(message, MESSAGE_KEYS),
    });
  };
  let seq = 1;
  for (const item of items) {
    const { t, close } = await open();
    try {
      const { status, body } = await run(t, item, seq++);
      lines.push(await describeResult(t, item.id, "alone", status, body));
    } finally {
      await close();
    }
  }
  const { t, close } = await open();
  try {
    for (const item of items) {
      const { status, body } = await run(t, item, seq++);
      lines.push(await describeResult(t, item.id, "sequence", status, body));
    }
  } finally {
    await close();
  }
  writeFileSync(out, `${lines.join("\n")}\n`);
  console.log(`${items.length} payloads (alone and in sequence) → ${out}`);
  expect(lines.length).toBe(items.length * 2);
});
