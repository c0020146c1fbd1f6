import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { databases } from "../helpers/db";
import { useHarness } from "../helpers/harness";
import { installRouteApp, uninstallRouteApp } from "../helpers/route-app";

describe.each(databases)("Liveness and readiness on $name", ({ open }) => {
  const h = useHarness({ open, withModel: false });
  beforeEach(() => installRouteApp(h.t.app, "test-api-token-0123456789"));
  afterEach(() => uninstallRouteApp());
  const readiness = async () => {
    const response = await ready();
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("is ready with the database up, every migration applied and the bot's identity known", async () => {
    expect((await live()).status).toBe(200);
    const r = await readiness();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "ready",
      database: { ok: true },
      migrations: { ok: true, pending: [] },
      channels: { telegram: { ok: true } },
    });
  });

  it("is not ready while a shipped migration is not applied; liveness stays 200", async () => {
    const [last] = await h.t.db.read<{ migration_name: string }>(
      `SELECT "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name" DESC LIMIT 1`,
    );
    await h.t.db.write([`DELETE FROM "_prisma_migrations" WHERE "migration_name" = ?`, last!.migration_name]);
    const r = await readiness();
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      status: "not_ready",
      database: { ok: true },
      migrations: { ok: false, pending: [last!.migration_name] },
    });
    expect((await live()).status).toBe(200);
  });
});
