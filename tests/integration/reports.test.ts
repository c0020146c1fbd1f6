import { describe, expect, it } from "vitest";
import { POST as acceptRoute } from "@/app/api/auth/invitation/route";
import { POST as loginRoute } from "@/app/api/auth/login/route";
import { PATCH as conversationPatchRoute } from "@/app/api/v1/conversations/[id]/route";
import { PATCH as patchOperatorRoute } from "@/app/api/v1/operators/[id]/route";
import { POST as inviteRoute } from "@/app/api/v1/operators/route";
import { GET as reportsCsvRoute } from "@/app/api/v1/reports.csv/route";
import { GET as reportsRoute } from "@/app/api/v1/reports/route";
import { reportResponse } from "@/lib/api/reports/schema";
import { hashPassword } from "@/lib/auth/password";
import { createFirstOperator } from "@/lib/db/operators";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "reports-test-token-0123456789abcdef";
type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
type Session = { cookie: string; csrf: string };

async function call(
  handler: unknown,
  path: string,
  options: { method?: string; session?: Session; body?: unknown; params?: Record<string, string> } = {},
) {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = options.body !== undefined ? { "content-type": "application/json" } : {};
  if (options.session) {
    headers.cookie = options.session.cookie;
    if (method !== "GET") headers["x-csrf-token"] = options.session.csrf;
  } else headers.authorization = `Bearer ${TOKEN}`;
  const request = new Request(`http://localhost${path}`, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const response = await (handler as Handler)(request, { params: Promise.resolve(options.params ?? {}) });
  const json = response.headers.get("content-type")?.includes("json");
  const body: any = json ? await response.json() : await response.text();
  return { status: response.status, body };
}

function sessionOf(response: Response): Session {
  const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("sb_csrf="))!.slice("sb_csrf=".length);
  return { cookie: cookies.join("; "), csrf };
}

const at = (iso: string, plusSeconds = 0) => new Date(Date.parse(iso) + plusSeconds * 1000);
const RANGE = "from=2026-11-02&to=2026-11-05";

describe.each(databases)("the inbox report on $name", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  /**
   * Two bots. In [2026-11-02, 2026-11-05): c1 (alpha) answered by the bot in 2 s and
   * resolved by root after 600 s; c2 (alpha) answered by the bot in 4 s, handed off,
   * answered by root in 60 s; c3 (bravo) answered by the bot in 2 s. Outside: c4 opened
   * the day before (its resolve falls in range), c5 opened exactly at `to`.
   */
  async function seed() {
    const db = app.t.db.prisma;
    const alpha = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-801", name: "Alpha" } });
    const bravo = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-802", name: "Bravo" } });
    let chat = 5000;
    const conversation = async (bot: { id: number; adapter: string }, messages: [string, "user" | "agent" | "operator", Date][]) => {
      const c = await db.conversation.create({
        data: {
          channel: bot.adapter,
          botId: bot.id,
          platformChatId: String(++chat),
          type: "private",
          lastMessageAt: messages[messages.length - 1][2],
        },
      });
      for (const [i, [text, kind, sentAt]] of messages.entries())
        await db.message.create({
          data: {
            conversationId: c.id,
            direction: kind === "user" ? "inbound" : "outbound",
            senderKind: kind,
            senderName: kind === "operator" ? "root" : kind === "agent" ? "agent" : "Una",
            text,
            sentAt,
            platformMessageId: `${c.id}-${i}`,
          },
        });
      return c;
    };
    const record = (conversationId: number, from: string, createdAt: Date, metadata: object) =>
      db.envelope.create({ data: { from, to: "operator:inbox", text: "a change", status: "done", conversationId, metadata, createdAt } });
    const resolve = (conversationId: number, createdAt: Date) =>
      record(conversationId, "operator:root", createdAt, { inbox: { action: "resolve", status: "resolved", by: "root" } });

    const t1 = "2026-11-02T10:00:00Z";
    const c1 = await conversation(alpha, [
      ["hi", "user", at(t1)],
      ["hello", "agent", at(t1, 2)],
    ]);
    await resolve(c1.id, at(t1, 600));
    const t2 = "2026-11-03T09:00:00Z";
    const c2 = await conversation(alpha, [
      ["help", "user", at(t2)],
      ["one moment", "agent", at(t2, 4)],
      ["here I am", "operator", at(t2, 60)],
    ]);
    await record(c2.id, "agent:main", at(t2, 5), { handoff: { action: "request", state: "waiting", reason: "asked" } });
    const t3 = "2026-11-03T12:00:00Z";
    await conversation(bravo, [
      ["hey", "user", at(t3)],
      ["hey there", "agent", at(t3, 2)],
    ]);
    const c4 = await conversation(alpha, [["late", "user", at("2026-11-01T23:00:00Z")]]);
    await resolve(c4.id, at("2026-11-02T08:00:00Z"));
    await conversation(alpha, [["at the end", "user", at("2026-11-05T00:00:00Z")]]);

    await createFirstOperator(app.t.db, { name: "root", passwordHash: await hashPassword("root-password-123") });
    const login = await app.t.db.prisma.operator.findUniqueOrThrow({ where: { name: "root" } });
    return { alpha, bravo, rootId: login.id, c1 };
  }

  async function agentLimitedTo(botIds: number[]) {
    const login = await (loginRoute as Handler)(
      new Request("http://localhost/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "root", password: "root-password-123" }),
      }),
      { params: Promise.resolve({}) },
    );
    const admin = sessionOf(login);
    const invited = await call(inviteRoute, "/api/v1/operators", { method: "POST", session: admin, body: { role: "agent" } });
    const accepted = await (acceptRoute as Handler)(
      new Request("http://localhost/api/auth/invitation", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: invited.body.token, name: "bob", password: "bob-password-12" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(accepted.status).toBe(201);
    const agentId = ((await accepted.json()) as { operator: { id: number } }).operator.id;
    const limited = await call(patchOperatorRoute, `/api/v1/operators/${agentId}`, {
      method: "PATCH",
      body: { botIds },
      params: { id: String(agentId) },
    });
    expect(limited.status).toBe(200);
    return sessionOf(accepted);
  }

  const report = async (query: string, session?: Session) => {
    const reply = await call(reportsRoute, `/api/v1/reports?${query}`, { session });
    expect(reply.status).toBe(200);
    const parsed = reportResponse.safeParse(reply.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    return reply.body;
  };

  it("counts, times and rates exactly what happened in the range, per day", async () => {
    await seed();
    expect(await report(RANGE)).toEqual({
      from: "2026-11-02T00:00:00.000Z",
      to: "2026-11-05T00:00:00.000Z",
      conversations: { opened: 3, resolved: 2 },
      firstResponseSeconds: { bot: { p50: 2, p90: 4 }, human: { p50: 60, p90: 60 } },
      resolutionSeconds: { p50: 600, p90: 600 },
      handoffRate: 1 / 3,
      answeredByBotShare: 2 / 3,
      byDay: [
        { day: "2026-11-02", opened: 1, resolved: 2, handoffs: 0 },
        { day: "2026-11-03", opened: 2, resolved: 0, handoffs: 1 },
        { day: "2026-11-04", opened: 0, resolved: 0, handoffs: 0 },
      ],
    });
    // Nothing measured: nulls, not zeros.
    expect(await report("from=2026-10-01&to=2026-10-02")).toMatchObject({
      conversations: { opened: 0, resolved: 0 },
      firstResponseSeconds: { bot: { p50: null, p90: null }, human: { p50: null, p90: null } },
      resolutionSeconds: { p50: null, p90: null },
      handoffRate: null,
      answeredByBotShare: null,
      byDay: [{ day: "2026-10-01", opened: 0, resolved: 0, handoffs: 0 }],
    });
  });

  it("narrows to one bot and to the conversations one operator handled", async () => {
    const s = await seed();
    expect(await report(`${RANGE}&botId=${s.alpha.id}`)).toMatchObject({
      conversations: { opened: 2, resolved: 2 },
      firstResponseSeconds: { bot: { p50: 2, p90: 4 } },
      handoffRate: 0.5,
    });
    expect(await report(`${RANGE}&operatorId=${s.rootId}`)).toMatchObject({
      conversations: { opened: 2, resolved: 2 },
      firstResponseSeconds: { human: { p50: 60, p90: 60 } },
      resolutionSeconds: { p50: 600, p90: 600 },
    });
    const unknown = await call(reportsRoute, `/api/v1/reports?${RANGE}&operatorId=99999`);
    expect(unknown.status).toBe(404);
    // A label: the conversations carrying it (its name ignoring case); a name no label has is a 400.
    const db = app.t.db.prisma;
    const vip = await db.label.create({ data: { name: "VIP", nameKey: "vip", color: "#6b7280" } });
    await db.conversationLabel.create({ data: { conversationId: s.c1.id, labelId: vip.id } });
    expect(await report(`${RANGE}&label=vip`)).toMatchObject({ conversations: { opened: 1 } });
    expect((await call(reportsRoute, `/api/v1/reports?${RANGE}&label=nope`)).status).toBe(400);
  });

  it("shows an agent limited to some bots only their bots, and another bot answers as an unknown one", async () => {
    const s = await seed();
    const bob = await agentLimitedTo([s.bravo.id]);
    expect(await report(RANGE, bob)).toMatchObject({
      conversations: { opened: 1, resolved: 0 },
      firstResponseSeconds: { bot: { p50: 2, p90: 2 }, human: { p50: null, p90: null } },
      handoffRate: 0,
      answeredByBotShare: 1,
    });
    expect((await report(`${RANGE}&botId=${s.bravo.id}`, bob)).conversations.opened).toBe(1);
    const other = await call(reportsRoute, `/api/v1/reports?${RANGE}&botId=${s.alpha.id}`, { session: bob });
    const unknown = await call(reportsRoute, `/api/v1/reports?${RANGE}&botId=99999`, { session: bob });
    expect(other.status).toBe(404);
    expect(other.body).toEqual(unknown.body);
    const csv = await call(reportsCsvRoute, `/api/v1/reports.csv?${RANGE}&botId=${s.alpha.id}`, { session: bob });
    expect(csv.status).toBe(404);
  });

  it("refuses bad input with a 400", async () => {
    await seed();
    const bad = [
      "from=yesterday",
      "to=2026-13-01",
      "from=2026-11-05&to=2026-11-05",
      "from=2026-11-05&to=2026-11-01",
      "from=2025-01-01&to=2026-01-03",
      "botId=abc",
      "botId=0",
      "operatorId=-1",
      "label=vip",
    ];
    const statuses = await Promise.all(bad.map(async (q) => (await call(reportsRoute, `/api/v1/reports?${q}`)).status));
    expect(statuses).toEqual(bad.map(() => 400));
    expect((await call(reportsCsvRoute, "/api/v1/reports.csv?from=nope")).status).toBe(400);
    // 366 days is the limit, not past it.
    expect((await call(reportsRoute, "/api/v1/reports?from=2025-01-01&to=2026-01-02")).status).toBe(200);
  });

  it("gives the same figures as CSV, one line per day and a total line", async () => {
    await seed();
    const csv = await call(reportsCsvRoute, `/api/v1/reports.csv?${RANGE}`);
    expect(csv.status).toBe(200);
    const lines = (csv.body as string).split("\r\n");
    expect(lines[0]).toBe(
      "day (UTC),opened,resolved,handoffs,first response bot p50 (s),first response bot p90 (s),first response human p50 (s),first response human p90 (s),resolution p50 (s),resolution p90 (s),handoff rate,answered by bot share",
    );
    expect(lines.slice(1)).toEqual([
      "2026-11-02,1,2,0,,,,,,,,",
      "2026-11-03,2,0,1,,,,,,,,",
      "2026-11-04,0,0,0,,,,,,,,",
      `total,3,2,1,2,4,60,60,600,600,${1 / 3},${2 / 3}`,
      "",
    ]);
  });

  it("counts a resolve made through the API, in the default range", async () => {
    const db = app.t.db.prisma;
    const bot = await db.bot.create({ data: { platform: "telegram", source: "api", adapter: "telegram-803", name: "Live" } });
    const c = await db.conversation.create({
      data: { channel: bot.adapter, botId: bot.id, platformChatId: "9001", type: "private", lastMessageAt: new Date() },
    });
    await db.message.create({
      data: { conversationId: c.id, direction: "inbound", senderKind: "user", text: "hi", sentAt: new Date(Date.now() - 5000) },
    });
    const resolved = await call(conversationPatchRoute, `/api/v1/conversations/${c.id}`, {
      method: "PATCH",
      body: { status: "resolved" },
      params: { id: String(c.id) },
    });
    expect(resolved.status).toBe(200);
    const body = await report("");
    expect(body.byDay).toHaveLength(7);
    expect(body.conversations).toEqual({ opened: 1, resolved: 1 });
    expect(body.resolutionSeconds.p50).toBeGreaterThan(0);
  });
});
