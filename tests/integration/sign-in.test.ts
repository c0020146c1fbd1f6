import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { credentialsSchema, setupFirstOperator, signIn } from "@/lib/auth/operators";
import { passwordWork } from "@/lib/auth/password";
import { createFirstOperator } from "@/lib/db/operators";
import { SignInThrottle } from "@/lib/auth/throttle";
import type { AppError } from "@/lib/errors";
import { sqliteTestDb, postgresTestDb, type TestDb } from "../helpers/db";

/**
 * The flood test holds the password hash that runs while the flood arrives, so the
 * strangers' lane fills however slowly a loaded machine delivers them (a real hash
 * takes ~50 ms: with slow arrivals the lane never filled and the test was flaky).
 */
const hashGate = vi.hoisted(() => ({ hold: null as Promise<void> | null }));
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  const scrypt = (...args: unknown[]) => {
    const run = () => (real.scrypt as (...a: unknown[]) => void)(...args);
    if (hashGate.hold) void hashGate.hold.then(run);
    else run();
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

const CODE = "ABCDE-FGHJK-LMNPQ";
const attempt = (db: TestDb, name: string, password: string, client: string) =>
  signIn(db.db, credentialsSchema.parse({ name, password }), client).then(
    () => "ok" as const,
    (error: AppError) => error.code,
  );

const backends = [
  ["SQLite", sqliteTestDb],
  ["PostgreSQL", postgresTestDb],
] as const;

for (const [label, open] of backends) {
  describe.skipIf(label === "PostgreSQL" && !process.env.TEST_DATABASE_URL)(`first-run setup on ${label}`, () => {
    let testDb: TestDb;
    beforeEach(async () => {
      testDb = await open();
    });
    afterEach(async () => testDb.close());

    it("20 concurrent setups create exactly one operator", async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          setupFirstOperator(testDb.db, { name: `admin${i}`, password: "a-long-password", code: CODE }, CODE),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect((r.reason as AppError).code).toBe("forbidden");
      expect(await testDb.db.prisma.operator.count()).toBe(1);
    });

    it("20 concurrent creations of the first operator (the atomic step itself, no hashing between) leave exactly one", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createFirstOperator(testDb.db, { name: `racer${i}`, passwordHash: "scrypt$x$y" })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await testDb.db.prisma.operator.count()).toBe(1);
    });

    it("a SETUP_CODE without letters or digits (e.g. Cyrillic) is not matched by punctuation", async () => {
      // The comparison ignores case and grouping; a code made only of other characters must not reduce to "" and match "-".
      await expect(
        setupFirstOperator(testDb.db, { name: "eve", password: "a-long-password", code: "-" }, "секретный-код"),
      ).rejects.toMatchObject({ code: "forbidden" });
      expect(await testDb.db.prisma.operator.count()).toBe(0);
      await setupFirstOperator(testDb.db, { name: "ops", password: "a-long-password", code: "секретный-код" }, "секретный-код");
      expect(await testDb.db.prisma.operator.count()).toBe(1);
    });

    it("needs the setup code, in any case and grouping, and a wrong code creates nothing", async () => {
      await expect(
        setupFirstOperator(testDb.db, { name: "eve", password: "a-long-password", code: "AAAAA-AAAAA-AAAAA" }, CODE),
      ).rejects.toMatchObject({ code: "forbidden" });
      expect(await testDb.db.prisma.operator.count()).toBe(0);
      await setupFirstOperator(testDb.db, { name: "ops", password: "a-long-password", code: " abcdefghjklmnpq " }, CODE);
      expect(await testDb.db.prisma.operator.count()).toBe(1);
    });
  });
}

describe("sign-in throttling", () => {
  let testDb: TestDb;
  beforeEach(async () => {
    testDb = await sqliteTestDb();
    await setupFirstOperator(testDb.db, { name: "admin", password: "the-right-password", code: CODE }, CODE);
  });
  afterEach(async () => testDb.close());

  it("a guesser is throttled by its address while the admin signs in from elsewhere", async () => {
    // The attacker rotates names and X-Forwarded-For; its key is its socket address, so neither helps.
    const results: string[] = [];
    for (let i = 0; i < 40; i++) results.push(await attempt(testDb, i % 2 ? "admin" : `user${i}`, `guess-${i}`, "198.51.100.66"));
    expect(results.filter((r) => r === "unauthorized").length).toBeLessThanOrEqual(20);
    expect(results.slice(-5)).toEqual(Array(5).fill("rate_limited"));
    // The real admin, from another address, is not locked out.
    expect(await attempt(testDb, "admin", "the-right-password", "203.0.113.10")).toBe("ok");
  }, 60_000);

  it("concurrent guesses from one address are held to the same budget as sequential ones", async () => {
    // All sent at once: each is checked before any has failed, so counting only finished failures let every one through.
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(testDb, "admin", `burst-${i}`, "198.51.100.99")));
    expect(results.filter((r) => r === "unauthorized").length).toBeLessThanOrEqual(5);
    expect(results.every((r) => r === "unauthorized" || r === "rate_limited")).toBe(true);
    expect(await attempt(testDb, "admin", "the-right-password", "203.0.113.11")).toBe("ok");
  }, 60_000);

  it("the account is slowed for everyone after repeated failures, but never refused to a correct password", () => {
    const throttle = new SignInThrottle();
    const t0 = 1_000_000;
    for (let i = 0; i < 12; i++) throttle.failure(`10.0.0.${i}`, "admin", t0);
    const fresh = throttle.check("203.0.113.10", "Admin", t0 + 1);
    expect(fresh).toMatchObject({ ok: true });
    expect((fresh as { delayMs: number }).delayMs).toBeGreaterThan(1_000);
    expect((fresh as { delayMs: number }).delayMs).toBeLessThanOrEqual(5_000);
    throttle.success("203.0.113.10", "admin");
    expect(throttle.check("10.0.0.1", "admin", t0 + 2)).toEqual({ ok: true, delayMs: 0 });
  });

  it("unknown user names count against the client too", () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < 20; i++) throttle.failure("198.51.100.7", `nobody${i}`, 0);
    expect(throttle.check("198.51.100.7", "nobody-new", 1)).toMatchObject({ ok: false });
    expect(throttle.check("198.51.100.8", "nobody-new", 1)).toMatchObject({ ok: true });
  });

  it("under a flood from many addresses, an operator who signed in before from their address is hashed first, never turned away as busy", async () => {
    expect(await attempt(testDb, "admin", "the-right-password", "203.0.113.77")).toBe("ok");
    let release!: () => void;
    hashGate.hold = new Promise<void>((resolve) => (release = resolve));
    const flood = Array.from({ length: 120 }, (_, i) => attempt(testDb, `stranger${i}`, "x", `198.18.${i >> 8}.${i & 255}`));
    // The strangers' lane is full: a newcomer is turned away as busy...
    await expect.poll(() => passwordWork().waiting, { timeout: 20_000 }).toBeGreaterThanOrEqual(32);
    expect(await attempt(testDb, "newcomer", "x", "203.0.113.200")).toBe("rate_limited");
    // ...while the known operator waits in the first lane and gets in before the strangers waiting.
    const known = attempt(testDb, "admin", "the-right-password", "203.0.113.77");
    await expect.poll(() => passwordWork().waiting, { timeout: 20_000 }).toBeGreaterThanOrEqual(33);
    hashGate.hold = null;
    release();
    expect(await known).toBe("ok");
    const results = await Promise.all(flood);
    expect(results).toContain("rate_limited");
    expect(passwordWork().running).toBe(0);
  }, 60_000);

  it("a flood of sign-ins runs one password hash at a time and turns the excess away", async () => {
    const results = await Promise.all(Array.from({ length: 80 }, (_, i) => attempt(testDb, `flood${i}`, "x", `192.0.2.${i}`)));
    expect(passwordWork().peak).toBe(1);
    expect(results).toContain("rate_limited");
    expect(results.every((r) => r === "unauthorized" || r === "rate_limited")).toBe(true);
    expect(passwordWork().running).toBe(0);
  });
});
