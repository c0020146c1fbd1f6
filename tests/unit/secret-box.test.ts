import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keyFilePath, loadSecretKey, parseKey, secretBox } from "@/lib/bots/secret-box";

describe("the secret box (bot credentials at rest)", () => {
  const key = randomBytes(32);

  it("seals with AES-256-GCM: nothing of the plain text shows, each seal differs, and it opens again", () => {
    const box = secretBox(key);
    const token = "123456789:AAHsecretsecretsecretsecret";
    const a = box.seal(token);
    const b = box.seal(token);
    expect(a).not.toBe(b);
    expect(a).not.toContain("secret");
    expect(box.open(a)).toBe(token);
  });

  it("refuses a wrong key or a changed byte (the tag), never returning garbage", () => {
    const sealed = secretBox(key).seal("a token");
    expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow();
    const [v, iv, tag, body] = sealed.split(".");
    const flipped = Buffer.from(body, "base64url");
    flipped[0] ^= 1;
    expect(() => secretBox(key).open([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow();
  });

  it("rotates: a box with the previous key opens old values, marks them stale, and seals with the new key", () => {
    const old = secretBox(key).seal("rotate me");
    const next = randomBytes(32);
    const rotating = secretBox(next, key);
    expect(rotating.isStale(old)).toBe(true);
    const again = rotating.seal(rotating.open(old));
    expect(rotating.isStale(again)).toBe(false);
    expect(secretBox(next).open(again)).toBe("rotate me");
  });

  it("takes 64 hex characters or base64 of 32 bytes, and nothing else", () => {
    expect(parseKey(key.toString("hex"))).toEqual(key);
    expect(parseKey(key.toString("base64"))).toEqual(key);
    expect(parseKey(key.toString("base64url"))).toEqual(key);
    expect(parseKey("too-short")).toBeNull();
    expect(parseKey(randomBytes(16).toString("hex"))).toBeNull();
    expect(() => loadSecretKey({ envKey: "not a key" })).toThrow(/SWITCHBOARD_SECRET_KEY/);
  });

  it("without the variable, generates a 0600 key file beside the SQLite database once", () => {
    const dir = mkdtempSync(join(tmpdir(), "secret-box-"));
    const db = join(dir, "switchboard.db");
    const first = loadSecretKey({ sqliteFile: db })!;
    expect(statSync(keyFilePath(db)).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFilePath(db), "utf8").trim()).toBe(first.toString("hex"));
    expect(loadSecretKey({ sqliteFile: db })).toEqual(first);
    expect(loadSecretKey({ sqliteFile: null })).toBeNull();
  });
});
