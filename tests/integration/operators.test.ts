import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { POST as acceptRoute } from "@/app/api/auth/invitation/route";
import { POST as loginRoute } from "@/app/api/auth/login/route";
import { POST as passwordRoute } from "@/app/api/v1/account/password/route";
import { DELETE as endSessionRoute } from "@/app/api/v1/account/sessions/[id]/route";
import { GET as sessionsRoute } from "@/app/api/v1/account/sessions/route";
import { GET as eventsRoute } from "@/app/api/v1/events/route";
import { DELETE as withdrawRoute } from "@/app/api/v1/operators/invitations/[id]/route";
import { DELETE as removeRoute, PATCH as patchOperatorRoute } from "@/app/api/v1/operators/[id]/route";
import { GET as listRoute, POST as inviteRoute } from "@/app/api/v1/operators/route";
import { GET as settingsGetRoute, PATCH as settingsRoute } from "@/app/api/v1/settings/route";
import { DELETE as botDeleteRoute, PATCH as botPatchRoute } from "@/app/api/v1/bots/[id]/route";
import { GET as botsRoute, POST as botAddRoute } from "@/app/api/v1/bots/route";
import { POST as simulatorRoute } from "@/app/api/v1/simulator/updates/route";
import { operations } from "@/lib/api/operations";
import { acceptInvitation, INVITATION_TTL_MS, inviteOperator } from "@/lib/auth/invitations";
import type { Caller } from "@/lib/auth/operators";
import { hashPassword } from "@/lib/auth/password";
import { updateOperator } from "@/lib/auth/team";
import { createFirstOperator } from "@/lib/db/operators";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const run = promisify(execFile);
const TOKEN = "operators-test-token-0123456789";
const ADMIN = { name: "root", password: "root-password-123" };
type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
type Session = { cookie: string; csrf: string };
type Reply = { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } }; response: Response };

/** Calls a route as Next does: a session's cookie and CSRF header, or the API token, or nothing. */
async function call(
  handler: Handler,
  path: string,
  options: {
    method?: string;
    session?: Session;
    token?: string;
    body?: unknown;
    params?: Record<string, string>;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<Reply> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { ...(options.body !== undefined ? { "content-type": "application/json" } : {}) };
  if (options.session) {
    headers.cookie = options.session.cookie;
    if (method !== "GET") headers["x-csrf-token"] = options.session.csrf;
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  Object.assign(headers, options.headers);
  const request = new Request(`http://localhost${path}`, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    signal: options.signal,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const body = response.headers.get("content-type")?.includes("json") ? ((await response.json()) as Reply["body"]) : {};
  return { status: response.status, body, response };
}

/** The session cookies a sign-in (or an accepted invitation) set. */
function sessionOf(response: Response): Session {
  const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("sb_csrf="))!.slice("sb_csrf=".length);
  return { cookie: cookies.join("; "), csrf };
}

async function signIn(name: string, password: string) {
  const reply = await call(loginRoute as Handler, "/api/auth/login", { method: "POST", body: { name, password } });
  return { ...reply, session: reply.status === 200 ? sessionOf(reply.response) : null };
}

/** The response validates against the schema the OpenAPI document gives for this operation. */
function expectDocumented(method: string, path: string, reply: Reply) {
  const op = operations.find((o) => o.method === method && o.path === path)!;
  expect(reply.status).toBe(op.response.status);
  const parsed = (op.response.schema as z.ZodType).safeParse(reply.body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

describe.each(databases)("operators and roles on $name", ({ name: database, open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  async function adminSession() {
    await createFirstOperator(app.t.db, { name: ADMIN.name, passwordHash: await hashPassword(ADMIN.password) });
    return (await signIn(ADMIN.name, ADMIN.password)).session!;
  }

  /** An admin invites, the invitee accepts: their signed-in session and operator id. */
  async function invite(admin: Session, role: "admin" | "agent", name: string, password = `${name}-password-1`) {
    const invited = await call(inviteRoute as Handler, "/api/v1/operators", { method: "POST", session: admin, body: { role } });
    expectDocumented("post", "/operators", invited);
    const token = invited.body.token as string;
    expect(invited.body.path).toBe(`/invite#${token}`);
    const accepted = await call(acceptRoute as Handler, "/api/auth/invitation", {
      method: "POST",
      body: { token, name, displayName: `${name} D.`, password },
    });
    expect(accepted.status).toBe(201);
    return { session: sessionOf(accepted.response), id: (accepted.body.operator as { id: number }).id, token, password };
  }

  it("invite → accept → sign in with the new role; the link works once", async () => {
    const admin = await adminSession();
    const bob = await invite(admin, "agent", "bob");
    expect(await app.t.db.prisma.operator.findUniqueOrThrow({ where: { id: bob.id } })).toMatchObject({
      name: "bob",
      displayName: "bob D.",
      role: "agent",
    });
    // The accepting request signed bob in already.
    const mine = await call(listRoute as Handler, "/api/v1/operators", { session: bob.session });
    expectDocumented("get", "/operators", mine);
    expect(mine.body).toMatchObject({ me: bob.id, role: "agent", invitations: [] });

    // A second use of the same link creates nothing.
    const again = await call(acceptRoute as Handler, "/api/auth/invitation", {
      method: "POST",
      body: { token: bob.token, name: "mallory", password: "mallory-password-1" },
    });
    expect(again.status).toBe(404);
    expect(await app.t.db.prisma.operator.count()).toBe(2);

    const signedIn = await signIn("bob", bob.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.operator).toMatchObject({ name: "bob", role: "agent" });
    // The admin sees the team with roles.
    const team = await call(listRoute as Handler, "/api/v1/operators", { session: admin });
    expect((team.body.operators as { name: string; role: string; status: string }[]).map((o) => [o.name, o.role, o.status])).toEqual([
      ["root", "admin", "active"],
      ["bob", "agent", "active"],
    ]);
  });

  it("invitation links: unknown, expired and withdrawn ones are refused alike; a taken name keeps the link usable", async () => {
    const admin = await adminSession();
    const root: Caller = { operator: { id: 1, name: "root" }, role: "admin", via: "session" };
    const accept = (token: string, name: string, now?: Date) =>
      acceptInvitation(app.t.db, { token, name, password: "a-long-password" }, "test-client", now).then(
        () => "ok",
        (error: { code: string }) => error.code,
      );
    expect(await accept("x".repeat(43), "guess")).toBe("not_found");
    const old = await inviteOperator(app.t.db, root, "agent");
    expect(await accept(old.token, "late", new Date(Date.now() + INVITATION_TTL_MS + 1000))).toBe("not_found");
    const taken = await accept(old.token, "ROOT");
    expect(taken).toBe("conflict");
    expect(await accept(old.token, "carol")).toBe("ok");

    const withdrawn = await call(inviteRoute as Handler, "/api/v1/operators", { method: "POST", session: admin, body: { role: "admin" } });
    const id = String((withdrawn.body.invitation as { id: number }).id);
    const open = await call(listRoute as Handler, "/api/v1/operators", { session: admin });
    expect((open.body.invitations as { id: number }[]).map((i) => String(i.id))).toEqual([id]);
    expectDocumented(
      "delete",
      "/operators/invitations/{id}",
      await call(withdrawRoute as Handler, "/x", { method: "DELETE", session: admin, params: { id } }),
    );
    expect(await accept(withdrawn.body.token as string, "dave")).toBe("not_found");
    expect(await app.t.db.prisma.operator.findMany({ select: { name: true }, orderBy: { id: "asc" } })).toEqual([
      { name: "root" },
      { name: "carol" },
    ]);
    // Only hashes are stored.
    const stored = await app.t.db.prisma.operatorInvitation.findMany();
    expect(JSON.stringify(stored)).not.toContain(old.token);
  });

  it("guessing invitation tokens is throttled per client; the real invitee elsewhere still gets in", async () => {
    await adminSession();
    const api: Caller = { operator: { id: 0, name: "api" }, role: "admin", via: "token" };
    // The throttle lives as long as the process: each database's run guesses from an address of its own.
    const guesser = database === "sqlite" ? "203.0.113.9" : "203.0.113.10";
    const real = await inviteOperator(app.t.db, api, "agent");
    const codes: string[] = [];
    for (let i = 0; i < 25; i++) {
      codes.push(
        await acceptInvitation(
          app.t.db,
          { token: `guess-${i}-${"x".repeat(36)}`, name: `g${i}`, password: "a-long-password" },
          guesser,
        ).then(
          () => "ok",
          (error: { code: string }) => error.code,
        ),
      );
    }
    expect(codes.slice(0, 5)).toEqual(Array(5).fill("not_found"));
    expect(codes.at(-1)).toBe("rate_limited");
    // The right token still gets in, even from the guesser's address (many invitees share one
    // behind a proxy): only wrong tokens are throttled, never a lockout.
    await acceptInvitation(app.t.db, { token: real.token, name: "gina", password: "a-long-password" }, guesser);
    expect(await app.t.db.prisma.operator.count({ where: { name: "gina", role: "agent" } })).toBe(1);
  });

  it("an invitation is void once its admin is removed, disabled or no longer an admin", async () => {
    await adminSession();
    const hash = await hashPassword("second-admin-pw-1");
    const ann = await app.t.db.prisma.operator.create({ data: { name: "ann", passwordHash: hash, role: "admin" } });
    const asAnn: Caller = { operator: { id: ann.id, name: "ann" }, role: "admin", via: "session" };
    const root: Caller = { operator: { id: 1, name: "root" }, role: "admin", via: "session" };
    const links = [await inviteOperator(app.t.db, asAnn, "admin"), await inviteOperator(app.t.db, asAnn, "agent")];
    await updateOperator(app.t.db, root, ann.id, { role: "agent" });
    const accept = (token: string, name: string) =>
      acceptInvitation(app.t.db, { token, name, password: "a-long-password" }, "test-client").then(
        () => "ok",
        (error: { code: string }) => error.code,
      );
    expect(await accept(links[0].token, "backdoor")).toBe("not_found");
    expect(await accept(links[1].token, "backdoor2")).toBe("not_found");
    expect(await app.t.db.prisma.operator.count({ where: { name: { startsWith: "backdoor" } } })).toBe(0);
    // A live admin's invitation works.
    expect(await accept((await inviteOperator(app.t.db, root, "agent")).token, "fair")).toBe("ok");
  });

  it("a new operator's names may not read as another's, the agent's or the system's", async () => {
    await adminSession();
    const root: Caller = { operator: { id: 1, name: "root" }, role: "admin", via: "session" };
    await app.t.db.prisma.operator.update({ where: { id: 1 }, data: { displayName: "Zed" } });
    const accept = async (name: string, displayName?: string) =>
      acceptInvitation(
        app.t.db,
        {
          token: (await inviteOperator(app.t.db, root, "agent")).token,
          name,
          password: "a-long-password",
          ...(displayName ? { displayName } : {}),
        },
        "test-client",
      ).then(
        () => "ok",
        (error: { code: string }) => error.code,
      );
    expect(await accept("mallory", "Zed")).toBe("conflict");
    expect(await accept("mallory", "r.o.o.t")).toBe("conflict");
    expect(await accept("zed")).toBe("conflict");
    expect(await accept("api")).toBe("conflict");
    expect(await accept("inbox")).toBe("conflict");
    expect(await accept("mallory", "Mallory M.")).toBe("ok");
  });

  it("two password changes at once: the second finds the password changed and changes nothing", async () => {
    await adminSession();
    const first = await signIn(ADMIN.name, ADMIN.password);
    const second = await signIn(ADMIN.name, ADMIN.password);
    const change = (session: Session, newPassword: string) =>
      call(passwordRoute as Handler, "/api/v1/account/password", {
        method: "POST",
        session,
        body: { currentPassword: ADMIN.password, newPassword },
        headers: { origin: "http://localhost", host: "localhost" },
      });
    const replies = await Promise.all([change(first.session!, "victim-new-123"), change(second.session!, "attacker-1234")]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 403]);
    const won = replies[0].status === 200 ? "victim-new-123" : "attacker-1234";
    const lost = won === "victim-new-123" ? "attacker-1234" : "victim-new-123";
    expect((await signIn(ADMIN.name, won)).status).toBe(200);
    expect((await signIn(ADMIN.name, lost)).status).toBe(401);
  });

  it("an agent gets 403 on settings and operator management, changes nothing, and keeps their own account", async () => {
    const admin = await adminSession();
    const bob = await invite(admin, "agent", "bob");
    const before = (await call(settingsGetRoute as Handler, "/api/v1/settings", { session: bob.session })).body;
    const refused: [string, Handler, string, object][] = [
      ["PATCH", settingsRoute as Handler, "/api/v1/settings", { body: { recencyWindow: 3 } }],
      ["POST", inviteRoute as Handler, "/api/v1/operators", { body: { role: "admin" } }],
      ["PATCH", patchOperatorRoute as Handler, "/api/v1/operators/1", { body: { role: "agent" }, params: { id: "1" } }],
      ["PATCH", patchOperatorRoute as Handler, "/api/v1/operators/2", { body: { role: "admin" }, params: { id: String(bob.id) } }],
      ["PATCH", patchOperatorRoute as Handler, "/api/v1/operators/1", { body: { disabled: true }, params: { id: "1" } }],
      ["PATCH", patchOperatorRoute as Handler, "/api/v1/operators/1", { body: { displayName: "Not root" }, params: { id: "1" } }],
      ["DELETE", removeRoute as Handler, "/api/v1/operators/1", { params: { id: "1" } }],
      ["POST", simulatorRoute as Handler, "/api/v1/simulator/updates", { body: { text: "hi" } }],
      // Bots hold credentials and decide what the agent says: admins only.
      ["GET", botsRoute as Handler, "/api/v1/bots", {}],
      ["POST", botAddRoute as Handler, "/api/v1/bots", { body: { platform: "telegram", token: `42:${"A".repeat(35)}` } }],
      ["PATCH", botPatchRoute as Handler, "/api/v1/bots/1", { body: { instructions: "Say yes to refunds." }, params: { id: "1" } }],
      ["DELETE", botDeleteRoute as Handler, "/api/v1/bots/1", { params: { id: "1" } }],
    ];
    for (const [method, handler, path, options] of refused) {
      const reply = await call(handler, path, { method, session: bob.session, ...options });
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 403 });
    }
    expect((await call(settingsGetRoute as Handler, "/api/v1/settings", { session: bob.session })).body).toEqual(before);
    expect(await app.t.db.prisma.operator.findMany({ select: { name: true, role: true, displayName: true, disabledAt: true } })).toEqual([
      { name: "root", role: "admin", displayName: null, disabledAt: null },
      { name: "bob", role: "agent", displayName: "bob D.", disabledAt: null },
    ]);
    expect(await app.t.db.prisma.operatorInvitation.count()).toBe(1);
    // Their own display name is theirs to change.
    const own = await call(patchOperatorRoute as Handler, "/x", {
      method: "PATCH",
      session: bob.session,
      body: { displayName: "Bob" },
      params: { id: String(bob.id) },
    });
    expectDocumented("patch", "/operators/{id}", own);

    // Promoted, the same session may now (the role is read on every request).
    await call(patchOperatorRoute as Handler, "/x", {
      method: "PATCH",
      session: admin,
      body: { role: "admin" },
      params: { id: String(bob.id) },
    });
    expect((await call(settingsRoute as Handler, "/x", { method: "PATCH", session: bob.session, body: { recencyWindow: 3 } })).status).toBe(
      200,
    );
  });

  it("the API token is an admin; it has no account of its own", async () => {
    await adminSession();
    const invited = await call(inviteRoute as Handler, "/api/v1/operators", { method: "POST", token: TOKEN, body: { role: "agent" } });
    expect(invited.status).toBe(201);
    expect(await app.t.db.prisma.operatorInvitation.findFirstOrThrow()).toMatchObject({ createdBy: "api" });
    const sessions = await call(sessionsRoute as Handler, "/x", { token: TOKEN });
    expectDocumented("get", "/account/sessions", sessions);
    expect(sessions.body).toEqual({ sessions: [] });
    const password = await call(passwordRoute as Handler, "/x", {
      method: "POST",
      token: TOKEN,
      body: { currentPassword: "x", newPassword: "another-long-one" },
    });
    expect(password.status).toBe(403);
  });

  it("mutations by session need the CSRF header and this origin", async () => {
    const admin = await adminSession();
    const noCsrf = await call(inviteRoute as Handler, "/x", {
      method: "POST",
      body: { role: "admin" },
      headers: { cookie: admin.cookie },
    });
    expect(noCsrf.status).toBe(403);
    const crossOrigin = await call(inviteRoute as Handler, "/x", {
      method: "POST",
      session: admin,
      body: { role: "admin" },
      headers: { origin: "https://evil.example", host: "localhost" },
    });
    expect(crossOrigin.status).toBe(403);
    expect(await app.t.db.prisma.operatorInvitation.count()).toBe(0);
    const invited = await inviteOperator(app.t.db, { operator: { id: 0, name: "api" }, role: "admin", via: "token" }, "admin");
    const crossAccept = await call(acceptRoute as Handler, "/x", {
      method: "POST",
      body: { token: invited.token, name: "eve", password: "eve-password-12" },
      headers: { origin: "https://evil.example", host: "localhost" },
    });
    expect(crossAccept.status).toBe(403);
    expect(await app.t.db.prisma.operator.count()).toBe(1);
  });

  it("a disabled or removed operator's session is refused on the next request, their event stream ends, their name stays", async () => {
    const admin = await adminSession();
    const bob = await invite(admin, "agent", "bob");
    const carol = await invite(admin, "agent", "carol");
    expect((await call(listRoute as Handler, "/x", { session: bob.session })).status).toBe(200);

    const abort = new AbortController();
    const stream = await call(eventsRoute as Handler, "/x", { session: bob.session, signal: abort.signal });
    expect(stream.status).toBe(200);
    const ended = (async () => {
      const reader = stream.response.body!.getReader();
      for (;;) if ((await reader.read()).done) return true;
    })();

    const disabled = await call(patchOperatorRoute as Handler, "/x", {
      method: "PATCH",
      session: admin,
      body: { disabled: true },
      params: { id: String(bob.id) },
    });
    expect(disabled.body.operator).toMatchObject({ name: "bob", status: "disabled" });
    expect(await ended).toBe(true);
    expect((await call(listRoute as Handler, "/x", { session: bob.session })).status).toBe(401);
    const refusedSignIn = await signIn("bob", bob.password);
    expect(refusedSignIn.status).toBe(403);
    // Enabled again, bob signs in anew (the old session stays gone).
    await call(patchOperatorRoute as Handler, "/x", {
      method: "PATCH",
      session: admin,
      body: { disabled: false },
      params: { id: String(bob.id) },
    });
    expect((await signIn("bob", bob.password)).status).toBe(200);
    expect((await call(listRoute as Handler, "/x", { session: bob.session })).status).toBe(401);

    const removed = await call(removeRoute as Handler, "/x", { method: "DELETE", session: admin, params: { id: String(carol.id) } });
    expectDocumented("delete", "/operators/{id}", removed);
    expect(removed.body.operator).toMatchObject({ name: "carol", status: "removed" });
    expect((await call(listRoute as Handler, "/x", { session: carol.session })).status).toBe(401);
    expect((await signIn("carol", carol.password)).status).toBe(401);
    // The name stays with the history: listed as removed, and nobody new can take it.
    const team = await call(listRoute as Handler, "/x", { session: admin });
    expect(team.body.operators).toContainEqual(expect.objectContaining({ name: "carol", displayName: "carol D.", status: "removed" }));
    const newcomer = await inviteOperator(app.t.db, { operator: { id: 0, name: "api" }, role: "admin", via: "token" }, "agent");
    await expect(
      acceptInvitation(app.t.db, { token: newcomer.token, name: "carol", password: "a-long-password" }, "c"),
    ).rejects.toMatchObject({ code: "conflict" });
    // Removing twice is a 404, not a second removal.
    expect((await call(removeRoute as Handler, "/x", { method: "DELETE", session: admin, params: { id: String(carol.id) } })).status).toBe(
      404,
    );
    abort.abort();
  });

  it("the last admin cannot be removed, disabled or demoted", async () => {
    const admin = await adminSession();
    const bob = await invite(admin, "agent", "bob");
    const rootId = "1";
    for (const [handler, method, body] of [
      [removeRoute, "DELETE", undefined],
      [patchOperatorRoute, "PATCH", { role: "agent" }],
      [patchOperatorRoute, "PATCH", { disabled: true }],
    ] as const) {
      const reply = await call(handler as Handler, "/x", { method, session: admin, body, params: { id: rootId } });
      expect(reply.status).toBe(409);
      expect(reply.body.error?.message).toMatch(/last admin/);
    }
    expect(await app.t.db.prisma.operator.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      role: "admin",
      disabledAt: null,
      removedAt: null,
    });
    // With a second admin, the first may step down.
    await call(patchOperatorRoute as Handler, "/x", {
      method: "PATCH",
      session: admin,
      body: { role: "admin" },
      params: { id: String(bob.id) },
    });
    expect(
      (
        await call(patchOperatorRoute as Handler, "/x", {
          method: "PATCH",
          session: admin,
          body: { role: "agent" },
          params: { id: rootId },
        })
      ).status,
    ).toBe(200);
  });

  it("two admins demoting, disabling or removing each other at once leave exactly one admin", async () => {
    await adminSession();
    const changes = [{ role: "agent" as const }, { disabled: true }, {}];
    for (let round = 0; round < 6; round++) {
      const a = await app.t.db.prisma.operator.create({ data: { name: `a${round}`, passwordHash: "x", role: "admin" } });
      // Only a and b are admins this round.
      await app.t.db.prisma.operator.updateMany({ where: { id: { not: a.id } }, data: { role: "agent" } });
      const b = await app.t.db.prisma.operator.create({ data: { name: `b${round}`, passwordHash: "x", role: "admin" } });
      const caller = (id: number, name: string): Caller => ({ operator: { id, name }, role: "admin", via: "session" });
      const change = changes[round % changes.length];
      const act = (by: Caller, target: number) =>
        "role" in change || "disabled" in change
          ? updateOperator(app.t.db, by, target, change)
          : import("@/lib/auth/team").then(({ removeOperator }) => removeOperator(app.t.db, target));
      const results = await Promise.allSettled([act(caller(a.id, a.name), b.id), act(caller(b.id, b.name), a.id)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(rejected.reason).toMatchObject({ code: "conflict" });
      const admins = await app.t.db.prisma.operator.count({ where: { role: "admin", disabledAt: null, removedAt: null } });
      expect(admins).toBe(1);
    }
  });

  it("a password change needs the current password; the other sessions end, this one stays", async () => {
    const admin = await adminSession();
    const elsewhere = (await signIn(ADMIN.name, ADMIN.password)).session!;
    const sessions = await call(sessionsRoute as Handler, "/x", { session: admin });
    expectDocumented("get", "/account/sessions", sessions);
    expect((sessions.body.sessions as { current: boolean }[]).map((s) => s.current).sort()).toEqual([false, true]);

    const wrong = await call(passwordRoute as Handler, "/x", {
      method: "POST",
      session: admin,
      body: { currentPassword: "not-the-password", newPassword: "a-new-password-456" },
    });
    expect(wrong.status).toBe(403);
    expect((await call(listRoute as Handler, "/x", { session: elsewhere })).status).toBe(200);
    const short = await call(passwordRoute as Handler, "/x", {
      method: "POST",
      session: admin,
      body: { currentPassword: ADMIN.password, newPassword: "short" },
    });
    expect(short.status).toBe(400);
    expect((await signIn(ADMIN.name, ADMIN.password)).status).toBe(200);

    const changed = await call(passwordRoute as Handler, "/x", {
      method: "POST",
      session: admin,
      body: { currentPassword: ADMIN.password, newPassword: "a-new-password-456" },
    });
    expectDocumented("post", "/account/password", changed);
    expect((await call(listRoute as Handler, "/x", { session: elsewhere })).status).toBe(401);
    expect((await call(listRoute as Handler, "/x", { session: admin })).status).toBe(200);
    expect((await signIn(ADMIN.name, ADMIN.password)).status).toBe(401);
    expect((await signIn(ADMIN.name, "a-new-password-456")).status).toBe(200);
  });

  it("an operator ends their own sessions, never another's", async () => {
    const admin = await adminSession();
    const bob = await invite(admin, "agent", "bob");
    const second = (await signIn("bob", bob.password)).session!;
    const listed = (await call(sessionsRoute as Handler, "/x", { session: bob.session })).body.sessions as {
      id: number;
      current: boolean;
      userAgent: string | null;
    }[];
    expect(listed).toHaveLength(2);
    const other = listed.find((s) => !s.current)!;
    const adminsOwn = (await call(sessionsRoute as Handler, "/x", { session: admin })).body.sessions as { id: number }[];
    // Bob cannot end the admin's session: it is not his (404, and it still works).
    expect(
      (await call(endSessionRoute as Handler, "/x", { method: "DELETE", session: bob.session, params: { id: String(adminsOwn[0].id) } }))
        .status,
    ).toBe(404);
    expect((await call(listRoute as Handler, "/x", { session: admin })).status).toBe(200);
    const ended = await call(endSessionRoute as Handler, "/x", {
      method: "DELETE",
      session: bob.session,
      params: { id: String(other.id) },
    });
    expectDocumented("delete", "/account/sessions/{id}", ended);
    expect((await call(listRoute as Handler, "/x", { session: second })).status).toBe(401);
    expect((await call(listRoute as Handler, "/x", { session: bob.session })).status).toBe(200);
  });

  it("npm run operator -- reset-password gives a locked-out admin a new password and ends their sessions", async () => {
    const admin = await adminSession();
    const env = { ...process.env, DATABASE_URL: app.testDb.url };
    const { stdout } = await run(process.execPath, ["scripts/operator.mjs", "reset-password", ADMIN.name], { env });
    const password = /New password for root \(admin\): (\S+)/.exec(stdout)?.[1];
    expect(password).toBeDefined();
    expect((await call(listRoute as Handler, "/x", { session: admin })).status).toBe(401);
    expect((await signIn(ADMIN.name, ADMIN.password)).status).toBe(401);
    expect((await signIn(ADMIN.name, password!)).status).toBe(200);
    const listed = await run(process.execPath, ["scripts/operator.mjs", "list"], { env });
    expect(listed.stdout).toContain("root\tadmin\tactive");
    await expect(run(process.execPath, ["scripts/operator.mjs", "reset-password", "nobody"], { env })).rejects.toMatchObject({
      stderr: expect.stringContaining("no operator named nobody"),
    });
  });
});
