import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { replayListResponse, replayResponse, runReportResponse } from "@/lib/api/replays/schema";
import { update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { startFakeLlm, type ChatRequest, type FakeLlm } from "../helpers/fake-llm";
import { failInterruptedReplays, replaysReserved } from "@/lib/db/replays";
import { endInterruptedReplays } from "@/lib/replay/interrupted";
import { openSession } from "@/lib/auth/operators";
import { AppError } from "@/lib/errors";
import { replayAsker, reserveReplayQuota } from "@/lib/replay/quota";
import { updateSettings } from "@/lib/settings/store";
import { useHarness, useScriptedApp } from "../helpers/harness";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

const TOKEN = "test-api-token-replay-0123456789";
type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;

/** The fake model: answers "Arr" when its system prompt asks for a pirate, else echoes the last user line's text. */
function script(request: ChatRequest) {
  const system = String(request.messages.find((m) => m.role === "system")?.content ?? "");
  if (system.includes("PIRATE")) return { reply: "Arr, matey" };
  if (system.includes("HANDOFF ALWAYS")) return { reply: "" };
  return { reply: "Hello from the fake model" };
}

async function call(file: string, method: string, params: Record<string, string>, body?: unknown, query = "") {
  const route = (await import(resolve(`app/api/v1/${file}/route.ts`))) as Record<string, Handler>;
  const request = new Request(`http://localhost/api/v1/x${query}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const response = await route[method]!(request, { params: Promise.resolve(params) });
  return { status: response.status, body: (await response.json()) as any };
}

const replayTurn = (turnId: number, body: unknown) => call("turns/[id]/replays", "POST", { id: String(turnId) }, body);

describe.each(databases)("replay on $name", ({ open }) => {
  let other: FakeLlm;
  beforeAll(async () => {
    other = await startFakeLlm(() => ({ reply: "Hello from the other model" }));
  });
  afterAll(() => other.close());
  const h = useHarness({ open, script, env: { SWITCHBOARD_API_TOKEN: TOKEN } });
  beforeEach(() => {
    other.requests.length = 0;
    installRouteApp(h.t.app, TOKEN);
  });
  afterEach(() => uninstallRouteApp());

  /** A private chat of `n` user messages, each answered by a turn; the turns, oldest first. */
  async function chat(texts: string[]) {
    for (const text of texts) {
      await h.t.post(update({ text }));
      await h.t.settle();
    }
    return h.t.db.prisma.turn.findMany({ orderBy: { id: "asc" } });
  }

  /** Everything a replay must not touch: what Telegram got, the history, the queue, the turns. */
  async function snapshot() {
    const db = h.t.db.prisma;
    return {
      telegram: h.telegram.calls.length,
      messages: await db.message.findMany({ orderBy: { id: "asc" } }),
      envelopes: await db.envelope.findMany({ orderBy: { id: "asc" } }),
      turns: await db.turn.count(),
      // servedAt is the worker's own note of when a turn ended, written at its next claim (any time after settle()).
      conversations: (await db.conversation.findMany({ orderBy: { id: "asc" } })).map(({ servedAt: _, ...c }) => c),
    };
  }

  it("a frozen replay with no changes sends the model exactly the recorded messages, and nothing reaches Telegram or the history", async () => {
    const [turn] = await chat(["What are your opening hours?"]);
    const original = h.llm.requests[0]!;
    const before = await snapshot();
    h.llm.requests.length = 0;
    const { status, body } = await replayTurn(turn!.id, { mode: "frozen" });
    expect(status).toBe(201);
    const replay = replayResponse.parse(body).replay;
    expect(h.llm.requests).toHaveLength(1);
    expect(h.llm.requests[0]!.messages).toEqual(original.messages);
    expect(h.llm.requests[0]!.tools).toEqual(original.tools);
    expect(replay).toMatchObject({ status: "done", mode: "frozen", turnId: turn!.id, error: null });
    expect(replay.output).toMatchObject({ replied: true, text: "Hello from the fake model", handoff: null });
    expect(replay.diff.answerChanged).toBe(false);
    expect(replay.diff.prompt.every((l) => l.op === "same")).toBe(true);
    expect(replay.inputTokens).toBe(12);
    expect(await snapshot()).toEqual(before);
    // Listed under its turn, and readable on its own.
    const list = replayListResponse.parse((await call("turns/[id]/replays", "GET", { id: String(turn!.id) })).body);
    expect(list.replays.map((r) => r.id)).toEqual([replay.id]);
    expect((await call("replays/[id]", "GET", { id: String(replay.id) })).status).toBe(200);
  });

  it("another instruction changes the system prompt and the answer; the diff shows it; nothing is sent", async () => {
    const [turn] = await chat(["Hi there"]);
    const before = await snapshot();
    const { body } = await replayTurn(turn!.id, { mode: "frozen", variant: { instructions: "You are a PIRATE." } });
    const replay = replayResponse.parse(body).replay;
    expect(replay.prompt.system.startsWith("You are a PIRATE.")).toBe(true);
    expect(replay.output?.text).toBe("Arr, matey");
    expect(replay.diff.answerChanged).toBe(true);
    expect(replay.diff.prompt).toContainEqual({ op: "added", text: "You are a PIRATE." });
    expect(replay.diff.prompt.filter((l) => l.op === "removed").map((l) => l.text)).toContain("You are a helpful assistant in a chat.");
    expect(await snapshot()).toEqual(before);
  });

  it("a rebuild with a smaller recency window drops the older lines, and the diff marks them removed", async () => {
    const turns = await chat(["alpha one", "bravo two", "charlie three", "delta four", "echo five"]);
    const last = turns.at(-1)!;
    const full = replayResponse.parse((await replayTurn(last.id, { mode: "rebuild" })).body).replay;
    // Same settings, same facts: the rebuild is the prompt the turn saw.
    expect(full.diff.prompt.every((l) => l.op === "same")).toBe(true);
    const small = replayResponse.parse(
      (await replayTurn(last.id, { mode: "rebuild", variant: { settings: { recencyWindow: 2 } } })).body,
    ).replay;
    const removed = small.diff.prompt.filter((l) => l.op === "removed").map((l) => l.text);
    for (const text of ["alpha one", "bravo two", "charlie three"]) expect(removed).toContain(text);
    expect(small.diff.prompt.filter((l) => l.op === "added")).toEqual([]);
    const kept = JSON.stringify(small.prompt.messages);
    expect(kept).toContain("echo five");
    expect(kept).not.toContain("charlie three");
  });

  it("a rebuild leaves out every message stored after the turn's message, even around a reply target", async () => {
    await chat(["first question"]);
    const target = await h.t.db.prisma.message.findFirstOrThrow({ where: { text: "first question" } });
    await h.t.post(
      update({
        text: "about that",
        replyTo: { message_id: Number(target.platformMessageId), text: "first question", from: { id: 4242, first_name: "Alice" } },
      }),
    );
    await h.t.settle();
    const turn = await h.t.db.prisma.turn.findFirstOrThrow({ orderBy: { id: "desc" } });
    await chat(["later news that came after", "even later"]);
    const replay = replayResponse.parse(
      (await replayTurn(turn.id, { mode: "rebuild", variant: { settings: { replyContextWindow: 10 } } })).body,
    ).replay;
    const text = JSON.stringify(replay.prompt);
    expect(text).toContain("about that");
    expect(text).not.toContain("later news");
    expect(text).not.toContain("even later");
  });

  it("a variant model's base URL receives the variant's request, the configured model none", async () => {
    const [turn] = await chat(["hello"]);
    h.llm.requests.length = 0;
    const { status, body } = await replayTurn(turn!.id, {
      mode: "frozen",
      variant: { model: { provider: "openai-compatible", model: "other-model", baseUrl: other.baseUrl, apiKey: "sk-other" } },
    });
    expect(status).toBe(201);
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.model).toBe("other-model");
    expect(h.llm.requests).toHaveLength(0);
    const replay = replayResponse.parse(body).replay;
    expect(replay.output?.text).toBe("Hello from the other model");
    expect(replay.model).toBe("openai-compatible:other-model");
    // The key is used, never stored or shown.
    expect(JSON.stringify(replay)).not.toContain("sk-other");
    expect(JSON.stringify(await h.t.db.prisma.replay.findMany())).not.toContain("sk-other");
    expect(other.authorizations).toEqual(["Bearer sk-other"]);
    // Without a key of its own, another address never gets the server's key.
    other.authorizations.length = 0;
    const keyless = await replayTurn(turn!.id, {
      mode: "frozen",
      variant: { model: { provider: "openai-compatible", model: "other-model", baseUrl: other.baseUrl } },
    });
    expect(keyless.status).toBe(201);
    expect(other.authorizations.some((a) => a?.includes("sk-test"))).toBe(false);
    // Nor the provider's own variable, which the AI SDK reads when given no key.
    process.env.OPENAI_API_KEY = "sk-env-deployment-secret";
    try {
      other.authorizations.length = 0;
      await replayTurn(turn!.id, {
        mode: "frozen",
        variant: { model: { provider: "openai", model: "other-model", baseUrl: other.baseUrl } },
      });
      expect(other.authorizations.length).toBeGreaterThan(0);
      expect(JSON.stringify(other.authorizations)).not.toContain("sk-env-deployment-secret");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("a dataset of ten turns runs to completion with its summary, two runs compare, and applying writes the settings with their change log", async () => {
    const turns = await chat(Array.from({ length: 10 }, (_, i) => `question number ${i + 1}`));
    expect(turns).toHaveLength(10);
    const before = await snapshot();
    const created = await call("datasets", "POST", {}, { name: "last week", turnIds: turns.map((t) => t.id) });
    expect(created.status).toBe(201);
    const datasetId = String(created.body.dataset.id);
    // From a search's results (messages): the turns behind them, user messages and the agent's answers alike.
    const messages = await h.t.db.prisma.message.findMany({ where: { text: { in: ["question number 1", "question number 2"] } } });
    const answers = await h.t.db.prisma.message.findMany({ where: { direction: "outbound" }, orderBy: { id: "asc" }, take: 1 });
    const fromSearch = await call("datasets", "POST", {}, { name: "search", messageIds: [...messages, ...answers].map((m) => m.id) });
    expect(fromSearch.status).toBe(201);
    expect([...fromSearch.body.dataset.turnIds].sort((a: number, b: number) => a - b)).toEqual([turns[0]!.id, turns[1]!.id]);
    const started = await call(
      "datasets/[id]/runs",
      "POST",
      { id: datasetId },
      { mode: "rebuild", variant: { instructions: "You are a PIRATE.", settings: { recencyWindow: 3 } } },
    );
    expect(started.status).toBe(201);
    const report = async (runId: number, query = "") =>
      runReportResponse.parse(
        (await call("datasets/[id]/runs/[runId]", "GET", { id: datasetId, runId: String(runId) }, undefined, query)).body,
      );
    let r = await report(started.body.run.id);
    for (let i = 0; i < 200 && r.run.status === "running"; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      r = await report(started.body.run.id);
    }
    expect(r.run.status).toBe("done");
    expect(r.summary).toMatchObject({ total: 10, done: 10, failed: 0, running: 0, changed: 10, becameSilent: 0, startedHandingOff: 0 });
    expect(r.summary.tokens.replay.input).toBe(120);
    expect(r.results.map((x) => x.turnId).sort((a, b) => a - b)).toEqual(turns.map((t) => t.id));
    // A second run without changes: nothing changed; compared with the first, every answer differs.
    const second = await call("datasets/[id]/runs", "POST", { id: datasetId }, { mode: "frozen" });
    let s = await report(second.body.run.id);
    for (let i = 0; i < 200 && s.run.status === "running"; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      s = await report(second.body.run.id);
    }
    expect(s.summary).toMatchObject({ done: 10, changed: 0 });
    const compared = await report(second.body.run.id, `?compareTo=${started.body.run.id}`);
    expect(compared.comparison?.turns.filter((t) => t.differ)).toHaveLength(10);
    expect(compared.comparison?.summary.changed).toBe(10);
    expect(await snapshot()).toEqual(before);
    // Apply the first run's variant.
    const applied = await call("datasets/[id]/runs/[runId]/apply", "POST", { id: datasetId, runId: String(started.body.run.id) });
    expect(applied.status).toBe(200);
    expect(applied.body.applied.sort()).toEqual(["agentInstructions", "recencyWindow"]);
    expect(applied.body.settings).toMatchObject({ agentInstructions: "You are a PIRATE.", recencyWindow: 3 });
    const changes = await h.t.db.prisma.settingChange.findMany();
    expect(changes.map((c) => c.key).sort()).toEqual(["agentInstructions", "recencyWindow"]);
  });

  it("bad variants are 400, unknown ids 404, a turn whose model is gone 409, and none of them stores anything", async () => {
    const [turn] = await chat(["hello"]);
    const id = turn!.id;
    const bad: unknown[] = [
      { mode: "frozen", variant: { settings: { recencyWindow: 5 } } },
      { mode: "rebuild", variant: { settings: { recencyWindow: 0 } } },
      { mode: "rebuild", variant: { settings: { recencyWindow: 201 } } },
      { mode: "rebuild", variant: { settings: { agentName: "x" } } },
      { mode: "rebuild", variant: { temperature: 2 } },
      { mode: "replay" },
      { mode: "frozen", variant: { model: { provider: "openai-compatible", model: " " } } },
      { mode: "frozen", variant: { model: { provider: "openai-compatible", model: "m", baseUrl: "file:///etc/passwd" } } },
      { mode: "frozen", variant: { model: { provider: "gemini", model: "m" } } },
      { mode: "frozen", variant: { instructions: "x".repeat(4001) } },
      "{",
    ];
    for (const body of bad) {
      const response = await replayTurn(id, body);
      expect({ body, status: response.status, message: typeof response.body.error?.message }).toEqual({
        body,
        status: 400,
        message: "string",
      });
    }
    expect((await replayTurn(2_147_483_647, { mode: "frozen" })).status).toBe(404);
    expect((await call("turns/[id]/replays", "GET", { id: "2147483647" })).status).toBe(404);
    expect((await call("replays/[id]", "GET", { id: "2147483647" })).status).toBe(404);
    expect((await call("replays/[id]/apply", "POST", { id: "2147483647" })).status).toBe(404);
    expect((await call("datasets", "POST", {}, { name: "x", turnIds: [id, 2_147_483_647] })).status).toBe(404);
    expect((await call("datasets", "POST", {}, { name: "x", turnIds: [] })).status).toBe(400);
    expect((await call("datasets", "POST", {}, { name: "x", conversationId: 2_147_483_647 })).status).toBe(404);
    expect((await call("datasets/[id]/runs", "POST", { id: "2147483647" }, { mode: "frozen" })).status).toBe(404);
    expect((await call("datasets/[id]/runs/[runId]", "GET", { id: "2147483647", runId: "1" })).status).toBe(404);
    // The turn's model is no longer the configured one: 409 naming what to do; with a model in the variant it runs.
    await h.t.db.prisma.turn.update({ where: { id }, data: { model: "openai:gone-model" } });
    const gone = await replayTurn(id, { mode: "frozen" });
    expect(gone.status).toBe(409);
    expect(gone.body.error.message).toContain("choose a model");
    expect(await h.t.db.prisma.replay.count()).toBe(0);
    const chosen = await replayTurn(id, { mode: "frozen", variant: { model: { provider: "openai-compatible", model: "fake-model" } } });
    expect(chosen.status).toBe(201);
  });

  it("a model that fails makes a failed replay with the reason, answered 201 and listed, never a 500", async () => {
    const [turn] = await chat(["hello"]);
    h.llm.setScript(() => ({ status: 500 }));
    const { status, body } = await replayTurn(turn!.id, { mode: "frozen" });
    expect(status).toBe(201);
    const replay = replayResponse.parse(body).replay;
    expect(replay).toMatchObject({ status: "failed", output: { replied: false, text: null } });
    expect(replay.error).toMatch(/^model call failed/);
    expect(replay.diff.answerChanged).toBe(false);
  });

  it("deleting the conversation deletes its replays", async () => {
    const [turn] = await chat(["hello"]);
    expect((await replayTurn(turn!.id, { mode: "frozen" })).status).toBe(201);
    expect(await h.t.db.prisma.replay.count()).toBe(1);
    const conversation = await h.t.db.prisma.conversation.findFirstOrThrow();
    await h.t.db.prisma.conversation.delete({ where: { id: conversation.id } });
    expect(await h.t.db.prisma.replay.count()).toBe(0);
  });

  it("a replay and a run that a stopped server left running end failed with the reason; live ones are left alone", async () => {
    const [turn] = await chat(["hello"]);
    const db = h.t.db.prisma;
    const conversationId = turn!.conversationId;
    const dataset = await db.dataset.create({ data: { name: "left behind", turnIds: [turn!.id, turn!.id], createdBy: "admin" } });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const run = await db.datasetRun.create({
      data: { datasetId: dataset.id, mode: "frozen", variant: {}, status: "running", total: 2, createdBy: "admin", createdAt: hourAgo },
    });
    const base = { turnId: turn!.id, conversationId, mode: "frozen", variant: {}, status: "running" };
    const stale = await db.replay.create({ data: { ...base, runId: run.id, createdAt: hourAgo } });
    const live = await db.replay.create({ data: base });
    expect(await failInterruptedReplays(h.t.db, 5 * 60_000)).toEqual({
      replays: 1,
      runs: [{ id: run.id, createdBy: "admin", quotaDay: null, unrun: 1 }],
    });
    expect(await db.replay.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^interrupted/),
    });
    expect((await db.replay.findUniqueOrThrow({ where: { id: live.id } })).status).toBe("running");
    expect(await db.datasetRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "failed",
      error: expect.stringContaining("after 1 of 2 turns"),
    });
    // A second sweep finds nothing more.
    expect(await failInterruptedReplays(h.t.db, 5 * 60_000)).toEqual({ replays: 0, runs: [] });
  });

  it("a run a stopped server left running ends failed once idle past 4 model timeouts + 1 minute, not before; its agent gets back the turns it never reached", async () => {
    const [turn] = await chat(["hello"]);
    const db = h.t.db.prisma;
    await updateSettings(h.t.db, { replaysPerAgentPerDay: 10 }, "test");
    const started = new Date(Date.now() - 60_000);
    // Amy's run of four turns was reserved as startRun reserves it; the server stopped after starting one.
    const { day } = await reserveReplayQuota(h.t.db, { name: "amy", quota: true }, 4, started);
    expect(day).toBe(started.toISOString().slice(0, 10));
    const dataset = await db.dataset.create({ data: { name: "cut short", turnIds: Array(4).fill(turn!.id), createdBy: "amy" } });
    // Runs as a stopped server left them: started a minute ago, still "running".
    const leftRunning = (createdBy: string, quotaDay: string | null) =>
      db.datasetRun.create({
        data: { datasetId: dataset.id, mode: "frozen", variant: {}, status: "running", total: 4, createdBy, quotaDay, createdAt: started },
      });
    const run = await leftRunning("amy", day);
    await db.replay.create({
      data: {
        turnId: turn!.id,
        conversationId: turn!.conversationId,
        mode: "frozen",
        variant: {},
        status: "running",
        runId: run.id,
        createdAt: started,
      },
    });
    // An admin's run (not counted: no quota day) gives nothing back to a count of the same name.
    await reserveReplayQuota(h.t.db, { name: "bo", quota: true }, 2, started);
    const admins = await leftRunning("bo", null);

    // With the 5 s model timeout of the tests, interrupted means idle past 80 s.
    const timeoutMs = h.t.app.turnDeps.timeoutMs;
    expect(await endInterruptedReplays(h.t.db, timeoutMs, new Date(started.getTime() + timeoutMs * 4 + 59_000))).toMatchObject({
      runs: [],
    });
    expect((await db.datasetRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("running");
    expect(await replaysReserved(h.t.db, "amy", day!)).toBe(4);

    const ended = await endInterruptedReplays(h.t.db, timeoutMs, new Date(started.getTime() + timeoutMs * 4 + 61_000));
    expect(ended.runs.map((r) => r.id).sort()).toEqual([run.id, admins.id].sort());
    expect(await db.datasetRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: "failed",
      error: expect.stringContaining("after 1 of 4 turns; start the run again"),
    });
    // The one it started counts (it may have called the model); the three it never reached are Amy's again.
    expect(await replaysReserved(h.t.db, "amy", day!)).toBe(1);
    expect(await replaysReserved(h.t.db, "bo", day!)).toBe(2);
    // Ended once: a second sweep gives nothing back again.
    expect((await endInterruptedReplays(h.t.db, timeoutMs, new Date(started.getTime() + 3_600_000))).runs).toEqual([]);
    expect(await replaysReserved(h.t.db, "amy", day!)).toBe(1);
  });

  it("an agent's replays are bounded per UTC day, reserved at once (parallel requests, deleted replays and runs cannot get past it); admins and the API token are not", async () => {
    await updateSettings(h.t.db, { replaysPerAgentPerDay: 2 }, "test");
    const turns = await chat(["first question", "second question", "third question"]);
    const request = { mode: "frozen" as const, variant: {} };
    const route = (file: string) => import(resolve(`app/api/v1/${file}/route.ts`)) as Promise<Record<string, Handler>>;
    const signedIn = async (name: string) => {
      const row = await h.t.db.prisma.operator.create({ data: { name, passwordHash: "scrypt$x$y", role: "agent" } });
      const session = await openSession(h.t.db, row, new Date(), null);
      return (method: string, body?: unknown) =>
        new Request("http://localhost/api/v1/x", {
          method,
          headers: { cookie: `sb_session=${session.token}`, "x-csrf-token": session.csrfToken, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
    };
    const asAmy = await signedIn("amy");
    const replays = await route("turns/[id]/replays");
    const replay = (turnId: number) => replays.POST!(asAmy("POST", request), { params: Promise.resolve({ id: String(turnId) }) });

    // Eight at once against a quota of two: two run, six are refused, none in between.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => replay(turns[i % 3]!.id)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 429, 429, 429, 429, 429, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(86_400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("Replays per agent per day");
    const amys = await h.t.db.prisma.replay.findMany({ where: { createdBy: "amy" } });
    expect(amys).toHaveLength(2);
    // Deleting them gives nothing back.
    const one = await route("replays/[id]");
    for (const r of amys) expect((await one.DELETE!(asAmy("DELETE"), { params: Promise.resolve({ id: String(r.id) }) })).status).toBe(200);
    expect((await replay(turns[0]!.id)).status).toBe(429);
    // Tomorrow (UTC) the count starts again.
    await reserveReplayQuota(h.t.db, { name: "amy", quota: true }, 1, new Date(Date.now() + 86_400_000));
    // The API token is not limited, and its replay is recorded as the API's.
    expect((await replayTurn(turns[2]!.id, request)).status).toBe(201);
    expect(await h.t.db.prisma.replay.count({ where: { createdBy: "api" } })).toBe(1);

    // A request refused before the model is called (an unknown turn) costs nothing.
    const asBea = await signedIn("bea");
    expect((await replays.POST!(asBea("POST", request), { params: Promise.resolve({ id: "2147483647" }) })).status).toBe(404);
    // A run counts all its turns when it starts: three do not fit in Bea's two, ever (no Retry-After).
    const dataset = await call("datasets", "POST", {}, { name: "three", turnIds: turns.map((t) => t.id) });
    const runs = await route("datasets/[id]/runs");
    const run = () => runs.POST!(asBea("POST", request), { params: Promise.resolve({ id: String(dataset.body.dataset.id) }) });
    const tooBig = await run();
    expect(tooBig.status).toBe(429);
    expect(tooBig.headers.get("retry-after")).toBeNull();
    expect(((await tooBig.json()) as { error: { message: string } }).error.message).toContain("more than an agent may in a day");
    expect(await h.t.db.prisma.datasetRun.count()).toBe(0);
    // With room for it, the run starts and takes three at once: one more replay fits, a second does not.
    await updateSettings(h.t.db, { replaysPerAgentPerDay: 4 }, "test");
    expect((await run()).status).toBe(201);
    // Counted against today's: the day is on the run, for giving back turns it never reaches.
    expect((await h.t.db.prisma.datasetRun.findFirstOrThrow()).quotaDay).toBe(new Date().toISOString().slice(0, 10));
    for (let i = 0; i < 200 && (await h.t.db.prisma.datasetRun.findFirstOrThrow()).status === "running"; i++)
      await new Promise((ok) => setTimeout(ok, 25));
    expect(await h.t.db.prisma.replay.count({ where: { createdBy: "bea" } })).toBe(3);
    expect((await replays.POST!(asBea("POST", request), { params: Promise.resolve({ id: String(turns[0]!.id) }) })).status).toBe(201);
    const over = await replays.POST!(asBea("POST", request), { params: Promise.resolve({ id: String(turns[0]!.id) }) });
    expect(over.status).toBe(429);
    // With the setting at 0, agents may not replay at all; an admin still may.
    await updateSettings(h.t.db, { replaysPerAgentPerDay: 0 }, "test");
    const none = await reserveReplayQuota(h.t.db, { name: "cid", quota: true }, 1).catch((error: unknown) => error);
    expect(none).toBeInstanceOf(AppError);
    expect((none as AppError).message).toContain("agents may not run replays");
    expect((none as AppError).retryAfterSeconds).toBeUndefined();
    await reserveReplayQuota(h.t.db, replayAsker({ operator: { id: 1, name: "root" }, role: "admin", via: "session" }), 1_000);
  });
});

describe("replay with the AI SDK mock model", () => {
  const s = useScriptedApp();
  afterEach(() => uninstallRouteApp());

  it("a handoff is captured as the replay's decision: nobody is called, the conversation stays with the agent, Telegram gets nothing", async () => {
    await s.start([{ replies: ["Happy to help"] }, { handoffs: ["the user asked for a person"], replies: ["Passing you on"] }]);
    installRouteApp(s.t.app, TOKEN);
    await s.t.post(update({ text: "I want a person" }));
    await s.t.settle();
    const turn = await s.t.db.prisma.turn.findFirstOrThrow();
    const telegramCalls = s.telegram.calls.length;
    const envelopes = await s.t.db.prisma.envelope.count();
    const replay = replayResponse.parse((await replayTurn(turn.id, { mode: "frozen" })).body).replay;
    expect(replay.output).toMatchObject({ replied: true, text: "Passing you on", handoff: "the user asked for a person" });
    expect(replay.diff.answerChanged).toBe(true);
    expect(s.telegram.calls.length).toBe(telegramCalls);
    expect(await s.t.db.prisma.envelope.count()).toBe(envelopes);
    expect((await s.t.db.prisma.conversation.findFirstOrThrow()).handoffState).toBeNull();
  });
});
