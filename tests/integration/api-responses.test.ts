import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import sharp from "sharp";
import type { z } from "zod";
import type { Operation } from "@/lib/api/operation";
import { operations } from "@/lib/api/operations";
import { blobStoreFor } from "@/lib/media/blob-store";
import { alice, update } from "../fixtures/telegram";
import { databases, hasPostgres, POSTGRES_SKIP_REASON } from "../helpers/db";
import { useHarness } from "../helpers/harness";

/**
 * The real route handlers (app/api/v1/**∕route.ts) on a real database,
 * each response validated against the schema the OpenAPI document shows for it.
 * Response objects are strict, so a field the schema does not name fails too:
 * the document cannot drift from what the routes send.
 */
const TOKEN = "test-api-token-0123456789";
import { processHolder } from "@/lib/server/wiring";

/**
 * Sandbox-only routes: the harness wires a live (fake) Telegram bot, where they answer 403 by design.
 * A session's own account: the API token has none (403); tests/integration/operators.test.ts checks them against the document.
 */
const NOT_CALLED = new Set([
  "post /simulator/updates",
  "post /simulator/failures",
  "post /simulator/files",
  "post /account/password",
  "delete /account/sessions/{id}",
]);

describe.each(databases)("API responses match the document on $name", ({ name, open }) => {
  const h = useHarness({ open });
  const called = new Set<string>();

  beforeEach(() => {
    // getApp() (lib/server/wiring.ts) keeps the process's app here; the routes read the test's.
    processHolder.context = Promise.resolve({ ...h.t.app, env: { ...h.t.app.env, SWITCHBOARD_API_TOKEN: TOKEN } });
  });
  afterEach(() => {
    processHolder.context = undefined;
  });

  function operation(method: Operation["method"], path: string) {
    const op = operations.find((o) => o.method === method && o.path === path);
    if (!op) throw new Error(`no operation ${method} ${path}`);
    return op;
  }

  /** Calls the route file of `op` as Next does, with the API token; `ids` fills the path's {id}. */
  async function call(op: Operation, options: { id?: number; runId?: number; query?: string; body?: unknown; form?: FormData } = {}) {
    called.add(`${op.method} ${op.path}`);
    const folder = op.path.replace(/\{(\w+)\}/g, "[$1]");
    const route = (await import(resolve("app/api/v1", `.${folder}`, "route.ts"))) as Record<
      string,
      (r: Request, c: { params: Promise<unknown> }) => Promise<Response>
    >;
    const url = `http://localhost/api/v1${op.path.replace("{id}", String(options.id)).replace("{runId}", String(options.runId))}${options.query ?? ""}`;
    const request = new Request(url, {
      method: op.method.toUpperCase(),
      headers: { authorization: `Bearer ${TOKEN}`, ...(options.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: options.form ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
    });
    const response = await route[op.method.toUpperCase()](request, {
      params: Promise.resolve({
        ...(options.id !== undefined ? { id: String(options.id) } : {}),
        ...(options.runId !== undefined ? { runId: String(options.runId) } : {}),
      }),
    });
    const text = await response.text();
    const raw = op.response.contentType === "text/csv" || op.response.contentType === "application/octet-stream";
    return { status: response.status, body: (raw && response.ok ? text : JSON.parse(text)) as unknown };
  }

  /** The response has the documented status and validates against the documented schema (issues listed when not). */
  function expectDocumented(op: Operation, response: { status: number; body: unknown }) {
    expect({ status: response.status, body: response.status === op.response.status ? "…" : response.body }).toEqual({
      status: op.response.status,
      body: "…",
    });
    const parsed = (op.response.schema as z.ZodType).safeParse(response.body);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${op.method} ${op.path}: ${i.path.join(".")}: ${i.message}`)).toEqual([]);
    return parsed.data as never;
  }

  async function populate() {
    await h.t.post(update({ text: "hello there", messageId: 1 }));
    await h.t.settle();
    await h.t.post(update({ text: "and this is a reply", replyTo: { message_id: 1, text: "hello there", from: alice } }));
    await h.t.settle();
    const conversation = await h.t.db.prisma.conversation.findFirstOrThrow();
    const started = await call(operation("post", "/forks"), { body: { conversationId: conversation.id, task: "look up the weather" } });
    expectDocumented(operation("post", "/forks"), started);
    await h.t.settle();
    const threaded = await h.t.db.prisma.message.findFirstOrThrow({ where: { threadId: { not: null } } });
    const turn = await h.t.db.prisma.turn.findFirstOrThrow();
    const fork = await h.t.db.prisma.fork.findFirstOrThrow();
    const replayOp = operation("post", "/turns/{id}/replays");
    const replayed = expectDocumented(
      replayOp,
      await call(replayOp, { id: turn.id, body: { mode: "rebuild", variant: { settings: { recencyWindow: 3 } } } }),
    ) as {
      replay: { id: number };
    };
    const datasetOp = operation("post", "/datasets");
    const dataset = expectDocumented(
      datasetOp,
      await call(datasetOp, { body: { name: "a dataset", conversationId: conversation.id } }),
    ) as {
      dataset: { id: number };
    };
    const runOp = operation("post", "/datasets/{id}/runs");
    const run = expectDocumented(
      runOp,
      await call(runOp, { id: dataset.dataset.id, body: { mode: "frozen", variant: { instructions: "Be brief." } } }),
    ) as {
      run: { id: number };
    };
    for (let i = 0; i < 200 && (await h.t.db.prisma.datasetRun.findUniqueOrThrow({ where: { id: run.run.id } })).status === "running"; i++)
      await new Promise((ok) => setTimeout(ok, 25));
    // A stored file on the threaded message, as the fetch job leaves one (its bytes: a real PNG).
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#08f" } })
      .png()
      .toBuffer();
    const { sha256 } = await blobStoreFor(h.t.db).put(png, "image/png");
    const attachment = await h.t.db.prisma.attachment.create({
      data: {
        messageId: threaded.id,
        kind: "photo",
        status: "stored",
        source: "telegram",
        sourceRef: "f",
        blobSha256: sha256,
        mimeType: "image/png",
        width: 8,
        height: 8,
      },
    });
    return {
      conversation: conversation.id,
      message: threaded.id,
      envelope: turn.envelopeId,
      turn: turn.id,
      fork: fork.id,
      replay: replayed.replay.id,
      dataset: dataset.dataset.id,
      run: run.run.id,
      media: attachment.id,
      png,
    };
  }

  it("every GET operation answers what its schema says, on real data", async () => {
    const ids = await populate();
    const idFor: Record<string, number> = {
      conversations: ids.conversation,
      messages: ids.message,
      envelopes: ids.envelope,
      turns: ids.turn,
      forks: ids.fork,
      replays: ids.replay,
      datasets: ids.dataset,
      // The environment's bot: a row like the others.
      bots: (await h.t.db.prisma.bot.findFirstOrThrow({ where: { adapter: "telegram" } })).id,
      media: ids.media,
    };
    const gets = operations.filter((op) => op.method === "get" && op.response.contentType !== "text/event-stream");
    expect(gets.length).toBeGreaterThan(10);
    for (const op of gets) {
      const id = op.path.includes("{id}") ? idFor[op.path.split("/")[1]] : undefined;
      if (op.path.includes("{id}")) expect(id, `an id for ${op.path}`).toBeDefined();
      const body = expectDocumented(op, await call(op, { id, runId: ids.run })) as Record<string, unknown>;
      expect(Object.keys(body).length, op.path).toBeGreaterThan(0);
    }
    // Data that shows the schemas were exercised, not only empty lists.
    const timeline = expectDocumented(
      operation("get", "/conversations/{id}/messages"),
      await call(operation("get", "/conversations/{id}/messages"), { id: ids.conversation }),
    ) as {
      messages: { envelopes: unknown[] }[];
    };
    expect(timeline.messages.length).toBeGreaterThanOrEqual(4);
    expect(timeline.messages.some((m) => m.envelopes.length > 0)).toBe(true);
    expect(timeline.messages.some((m) => (m as { attachments?: unknown[] }).attachments?.length)).toBe(true);
    const thread = expectDocumented(
      operation("get", "/messages/{id}/thread"),
      await call(operation("get", "/messages/{id}/thread"), { id: ids.message }),
    ) as { members: unknown[] };
    expect(thread.members.length).toBeGreaterThanOrEqual(2);
    const envelopes = expectDocumented(
      operation("get", "/envelopes"),
      await call(operation("get", "/envelopes"), { query: "?take=50" }),
    ) as { envelopes: { turn: unknown }[] };
    expect(envelopes.envelopes.some((e) => e.turn !== null)).toBe(true);
  });

  it("every mutation answers what its schema says", async () => {
    const ids = await populate();
    const reply = operation("post", "/messages/{id}/reply");
    const answered: { messageId: number } = expectDocumented(
      reply,
      await call(reply, { id: ids.message, body: { text: "an operator's answer" } }),
    );
    const edit = operation("patch", "/messages/{id}");
    expect(
      expectDocumented(edit, await call(edit, { id: answered.messageId, body: { text: "an operator's better answer" } })),
    ).toMatchObject({
      message: { text: "an operator's better answer", revisions: [{ text: "an operator's answer", editedBy: "api" }] },
    });
    const unsend = operation("delete", "/messages/{id}");
    expect(expectDocumented(unsend, await call(unsend, { id: answered.messageId }))).toMatchObject({ message: { deletedBy: "api" } });
    const agentAnswer = await h.t.db.prisma.message.findFirstOrThrow({
      where: { senderKind: "agent", deletedAt: null },
      orderBy: { id: "asc" },
    });
    h.llm.setScript(() => ({ reply: "a regenerated answer" }));
    const regenerate = operation("post", "/messages/{id}/regenerate");
    // The documented shape; whether it edited or sent anew is tests/integration/regenerate.test.ts's.
    expect(expectDocumented(regenerate, await call(regenerate, { id: agentAnswer.id }))).toMatchObject({
      mode: expect.stringMatching(/^(edited|sent)$/),
      message: { text: "a regenerated answer" },
    });
    const form = new FormData();
    form.set("file", new File([new Uint8Array(ids.png)], "dot.png", { type: "image/png" }));
    form.set("caption", "a file");
    const media = operation("post", "/conversations/{id}/media");
    expect(expectDocumented(media, await call(media, { id: ids.conversation, form }))).toMatchObject({ recorded: true });
    const patch = operation("patch", "/conversations/{id}");
    expect(expectDocumented(patch, await call(patch, { id: ids.conversation, body: { agentEnabled: false } }))).toMatchObject({
      conversation: { agentEnabled: false },
    });
    const op = await h.t.db.prisma.operator.create({ data: { name: "dana", passwordHash: "scrypt$x$y", role: "agent" } });
    const rename = operation("patch", "/operators/{id}");
    expect(expectDocumented(rename, await call(rename, { id: op.id, body: { displayName: "Dana Scully" } }))).toMatchObject({
      operator: { id: op.id, name: "dana", displayName: "Dana Scully" },
    });
    const invite = operation("post", "/operators");
    const invited = expectDocumented(invite, await call(invite, { body: { role: "agent" } })) as { invitation: { id: number } };
    const withdraw = operation("delete", "/operators/invitations/{id}");
    expectDocumented(withdraw, await call(withdraw, { id: invited.invitation.id }));
    const remove = operation("delete", "/operators/{id}");
    expect(expectDocumented(remove, await call(remove, { id: op.id }))).toMatchObject({ operator: { name: "dana", status: "removed" } });
    expectDocumented(
      operation("post", "/conversations/{id}/read"),
      await call(operation("post", "/conversations/{id}/read"), { id: ids.conversation }),
    );
    const settings = operation("patch", "/settings");
    expect(expectDocumented(settings, await call(settings, { body: { recencyWindow: 12 } }))).toMatchObject({
      settings: { recencyWindow: 12 },
    });

    const applyReplay = operation("post", "/replays/{id}/apply");
    expect(expectDocumented(applyReplay, await call(applyReplay, { id: ids.replay }))).toMatchObject({ applied: ["recencyWindow"] });
    const applyRun = operation("post", "/datasets/{id}/runs/{runId}/apply");
    expect(expectDocumented(applyRun, await call(applyRun, { id: ids.dataset, runId: ids.run }))).toMatchObject({
      applied: ["agentInstructions"],
      settings: { agentInstructions: "Be brief." },
    });
    const dropReplay = operation("delete", "/replays/{id}");
    expectDocumented(dropReplay, await call(dropReplay, { id: ids.replay }));
    expect(await h.t.db.prisma.replay.count({ where: { id: ids.replay } })).toBe(0);
    const dropDataset = operation("delete", "/datasets/{id}");
    expectDocumented(dropDataset, await call(dropDataset, { id: ids.dataset }));

    const resume = operation("post", "/forks/{id}/resume");
    const resumed = expectDocumented(resume, await call(resume, { id: ids.fork })) as { fork: { id: number } };
    const exit = operation("post", "/forks/{id}/exit");
    expectDocumented(exit, await call(exit, { id: resumed.fork.id, body: { strategy: "discard" } }));

    const send = operation("post", "/envelopes");
    expectDocumented(send, await call(send, { body: { from: "agent:helper", to: "agent:other", text: "a note" } }));
    const receive = operation("post", "/envelopes/receive");
    const received = expectDocumented(receive, await call(receive, { body: { to: "agent:other" } })) as { envelopes: unknown[] };
    expect(received.envelopes).toHaveLength(1);

    const plain = operation("post", "/conversations/{id}/messages");
    expect(expectDocumented(plain, await call(plain, { id: ids.conversation, body: { text: "a plain operator message" } }))).toMatchObject({
      ok: true,
      recorded: true,
    });

    const status = expectDocumented(patch, await call(patch, { id: ids.conversation, body: { status: "snoozed", assigneeId: op.id } }));
    expect(status).toMatchObject({ conversation: { status: "snoozed", snoozedUntil: null, assigneeId: op.id } });
    const note = operation("post", "/conversations/{id}/notes");
    expect(expectDocumented(note, await call(note, { id: ids.conversation, body: { text: "call back on Monday" } }))).toMatchObject({
      note: { text: "call back on Monday", operatorName: "api" },
    });
    const notes = operation("get", "/conversations/{id}/notes");
    expect(expectDocumented(notes, await call(notes, { id: ids.conversation }))).toMatchObject({
      notes: [{ text: "call back on Monday" }],
    });
    const contact = operation("get", "/conversations/{id}/contact");
    expect(expectDocumented(contact, await call(contact, { id: ids.conversation }))).toMatchObject({
      contact: { name: "Alice", username: "alice", platformUserId: String(alice.id) },
      notes: [{ text: "call back on Monday" }],
    });
    const create = operation("post", "/saved-replies");
    const saved = expectDocumented(create, await call(create, { body: { shortcut: "hi", text: "Hello {{first_name}}!" } })) as {
      savedReply: { id: number };
    };
    const list = operation("get", "/saved-replies");
    expect(expectDocumented(list, await call(list, { query: `?search=/h&conversationId=${ids.conversation}` }))).toMatchObject({
      savedReplies: [{ shortcut: "hi", expanded: "Hello Alice!" }],
    });
    const change = operation("patch", "/saved-replies/{id}");
    expect(expectDocumented(change, await call(change, { id: saved.savedReply.id, body: { text: "Hi {{first_name}}" } }))).toMatchObject({
      savedReply: { text: "Hi {{first_name}}" },
    });
    const removeSaved = operation("delete", "/saved-replies/{id}");
    expectDocumented(removeSaved, await call(removeSaved, { id: saved.savedReply.id }));

    const addLabel = operation("post", "/labels");
    const label = expectDocumented(addLabel, await call(addLabel, { body: { name: "billing" } })) as { label: { id: number } };
    const labels = operation("get", "/labels");
    expect(expectDocumented(labels, await call(labels))).toMatchObject({ labels: [{ name: "billing" }] });
    const changeLabel = operation("patch", "/labels/{id}");
    expect(expectDocumented(changeLabel, await call(changeLabel, { id: label.label.id, body: { color: "#aa0000" } }))).toMatchObject({
      label: { name: "billing", color: "#aa0000" },
    });
    expect(
      expectDocumented(patch, await call(patch, { id: ids.conversation, body: { labels: ["Billing"], priority: "urgent" } })),
    ).toMatchObject({ conversation: { labels: ["billing"], priority: "urgent" } });
    const removeLabel = operation("delete", "/labels/{id}");
    expectDocumented(removeLabel, await call(removeLabel, { id: label.label.id }));

    const addBot = operation("post", "/bots");
    // A bot of its own: an unknown token's getMe answers the environment's bot, which cannot be added twice.
    const token = `424242:${"Q".repeat(35)}`;
    h.telegram.addBot(token, { id: 424242, username: "documented_bot", first_name: "Documented" });
    const bot = expectDocumented(addBot, await call(addBot, { body: { platform: "telegram", token } })) as {
      bot: { id: number };
    };
    const changeBot = operation("patch", "/bots/{id}");
    expect(
      expectDocumented(
        changeBot,
        await call(changeBot, { id: bot.bot.id, body: { instructions: "Be brief.", settings: { recencyWindow: 5 } } }),
      ),
    ).toMatchObject({ bot: { instructions: "Be brief.", settings: { recencyWindow: 5 } } });
    const hook = operation("post", "/bots/{id}/webhook");
    expectDocumented(hook, await call(hook, { id: bot.bot.id, body: { publicUrl: "https://example.test" } }));
    const removeBot = operation("delete", "/bots/{id}");
    expect(expectDocumented(removeBot, await call(removeBot, { id: bot.bot.id }))).toMatchObject({ ok: true, erased: false });

    const handoff = operation("post", "/conversations/{id}/handoff");
    expect(
      expectDocumented(
        handoff,
        await call(handoff, { id: ids.conversation, body: { action: "request", reason: "needs a refund decision" } }),
      ),
    ).toMatchObject({
      handoff: { state: "waiting", reason: "needs a refund decision" },
    });
    const inbox = operation("get", "/handoffs");
    expect(expectDocumented(inbox, await call(inbox))).toMatchObject({
      handoffs: [{ conversationId: ids.conversation, state: "waiting" }],
    });
    expect(expectDocumented(handoff, await call(handoff, { id: ids.conversation, body: { action: "take" } }))).toMatchObject({
      handoff: { state: "assigned" },
    });
    expect(expectDocumented(handoff, await call(handoff, { id: ids.conversation, body: { action: "release" } }))).toEqual({
      handoff: null,
    });

    const outbound = await h.t.db.prisma.envelope.findFirstOrThrow({ where: { to: { startsWith: "channel:" } } });
    await h.t.db.prisma.envelope.update({ where: { id: outbound.id }, data: { status: "failed", lastDeliveryError: "Telegram 500" } });
    const retry = operation("post", "/envelopes/{id}/retry");
    expect(expectDocumented(retry, await call(retry, { id: outbound.id }))).toMatchObject({ retried: "send" });
    await h.t.settle();

    // Last: deleting a conversation's data (another chat's, made for it).
    await h.t.post(update({ chat: { id: 9191, type: "private" }, from: { id: 9191, first_name: "Zed" }, text: "delete me" }));
    await h.t.settle();
    const doomed = await h.t.db.prisma.conversation.findFirstOrThrow({ where: { platformChatId: "9191" } });
    const erase = operation("delete", "/conversations/{id}");
    expect(expectDocumented(erase, await call(erase, { id: doomed.id }))).toEqual({ removedFiles: 0 });
  });

  it("the event stream's events are what its schema says", async () => {
    const op = operation("get", "/events");
    called.add("get /events");
    const route = (await import(resolve("app/api/v1/events/route.ts"))) as {
      GET: (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
    };
    const abort = new AbortController();
    const response = await route.GET(
      new Request("http://localhost/api/v1/events", { headers: { authorization: `Bearer ${TOKEN}` }, signal: abort.signal }),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(op.response.status);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const read = (async () => {
      while (!/^data: .*\n\n/m.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    })();
    await h.t.post(update({ text: "an event for the stream" }));
    await read;
    abort.abort();
    const data = /^data: (.*)$/m.exec(text)![1];
    const parsed = op.response.schema.safeParse(JSON.parse(data));
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    await h.t.settle();
  });

  it("a field the schema does not name fails validation (the check has teeth)", async () => {
    const op = operation("get", "/status");
    const response = await call(op);
    expect(op.response.schema.safeParse({ ...(response.body as object), extra: 1 }).success).toBe(false);
    expect(op.response.schema.safeParse(response.body).success).toBe(true);
  });

  it("every operation was called by a test above, apart from the sandbox-only ones", () => {
    const uncalled = operations.map((op) => `${op.method} ${op.path}`).filter((key) => !called.has(key) && !NOT_CALLED.has(key));
    expect(uncalled).toEqual([]);
  });

  // The one skipped entry a run without PostgreSQL shows, with its reason.
  if (name === "sqlite" && !hasPostgres) it.skipIf(!hasPostgres)(`PostgreSQL variant: ${POSTGRES_SKIP_REASON}`, () => {});
});
