import { describe, expect, it } from "vitest";
import { numberedPlaceholders, postgresValue, sqliteValue } from "@/lib/db/sql";

describe("values for hand-written SQLite statements", () => {
  it("are encoded as Prisma's SQLite adapter encodes them", () => {
    expect(sqliteValue(new Date("2026-11-20T10:00:00.250Z"))).toBe("2026-11-20T10:00:00.250+00:00");
    expect(sqliteValue(true)).toBe(1);
    expect(sqliteValue(false)).toBe(0);
    expect(sqliteValue(undefined)).toBeNull();
    expect(sqliteValue(null)).toBeNull();
    expect(sqliteValue({ updateId: "1", nested: { a: [1] } })).toBe('{"updateId":"1","nested":{"a":[1]}}');
    expect(sqliteValue("text")).toBe("text");
    expect(sqliteValue(42)).toBe(42);
  });
});

describe("placeholders for PostgreSQL", () => {
  it("number each ? in order", () => {
    expect(numberedPlaceholders(`UPDATE "T" SET "a" = ?, "b" = ? WHERE "id" = ? AND (? OR "g" = ?)`)).toBe(
      `UPDATE "T" SET "a" = $1, "b" = $2 WHERE "id" = $3 AND ($4 OR "g" = $5)`,
    );
    expect(numberedPlaceholders(`SELECT 1`)).toBe(`SELECT 1`);
  });
});

describe("values for hand-written PostgreSQL statements", () => {
  it("send dates as UTC (timestamp(3) columns hold UTC, as Prisma writes them) and objects as JSON", () => {
    expect(postgresValue(new Date("2026-11-20T10:00:00.250Z"))).toBe("2026-11-20T10:00:00.250Z");
    expect(postgresValue(true)).toBe(true);
    expect(postgresValue(undefined)).toBeNull();
    expect(postgresValue({ a: 1 })).toBe('{"a":1}');
  });
});
