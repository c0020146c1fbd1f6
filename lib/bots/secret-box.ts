import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { log } from "../log";

/**
 * Secrets at rest (bot tokens, channel secrets, a bot's model key): AES-256-GCM
 * with a random 96-bit IV per value, stored as `v1.<iv>.<tag>.<ciphertext>`
 * (base64url). The database alone never reveals a token; the key lives in
 * SWITCHBOARD_SECRET_KEY or, on the embedded default, in a 0600 file beside the
 * SQLite database.
 */
export type SecretBox = {
  seal(plain: string): string;
  open(sealed: string): string;
  /** Whether a sealed value was sealed with an earlier key (rotation: seal it again). */
  isStale(sealed: string): boolean;
};

const PREFIX = "v1";

/** 32 bytes from 64 hex characters or base64 (standard or url-safe); null when it is neither. */
export function parseKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replaceAll("-", "+").replaceAll("_", "/"), "base64");
    if (bytes.length === 32) return bytes;
  }
  return null;
}

/**
 * Seals with `key`; opens with `key`, else with `previous` (key rotation: the
 * start seals every value again with the new key, lib/bots/rotate.ts).
 */
export function secretBox(key: Buffer, previous?: Buffer | null): SecretBox {
  const current = oneKeyBox(key);
  if (!previous) return current;
  const old = oneKeyBox(previous);
  return {
    seal: current.seal,
    open(sealed) {
      try {
        return current.open(sealed);
      } catch {
        return old.open(sealed);
      }
    },
    isStale(sealed) {
      try {
        current.open(sealed);
        return false;
      } catch {
        return true;
      }
    },
  };
}

function oneKeyBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("the secret key must be 32 bytes");
  return {
    isStale: () => false,
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [PREFIX, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
    },
    open(sealed) {
      const [prefix, iv, tag, body] = sealed.split(".");
      if (prefix !== PREFIX || !iv || !tag || body === undefined) throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      // A wrong key fails the tag check here (never garbage).
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

/** Where the embedded default keeps its key: beside the SQLite file. */
export function keyFilePath(sqliteFile: string): string {
  return join(dirname(resolve(sqliteFile)), "secret.key");
}

/**
 * The key in force: SWITCHBOARD_SECRET_KEY when set (a malformed one stops the
 * start, naming the variable); else, for a SQLite file, the key file beside it,
 * generated once with mode 0600; else (PostgreSQL without the variable) null,
 * and bots with stored credentials cannot be added.
 */
/** SWITCHBOARD_SECRET_KEY_PREVIOUS, during a rotation: the key values were sealed with until now. */
export function loadPreviousKey(text: string | undefined): Buffer | null {
  if (!text) return null;
  const key = parseKey(text);
  if (!key) throw new Error("Invalid environment:\n  SWITCHBOARD_SECRET_KEY_PREVIOUS: 32 bytes as 64 hex characters or base64");
  return key;
}

export function loadSecretKey(options: { envKey?: string; sqliteFile?: string | null }): Buffer | null {
  if (options.envKey) {
    const key = parseKey(options.envKey);
    if (!key) throw new Error("Invalid environment:\n  SWITCHBOARD_SECRET_KEY: 32 bytes as 64 hex characters or base64");
    return key;
  }
  if (!options.sqliteFile || options.sqliteFile === ":memory:") return null;
  const path = keyFilePath(options.sqliteFile);
  if (existsSync(path)) {
    const key = parseKey(readFileSync(path, "utf8"));
    if (!key) throw new Error(`${path} does not hold a 32-byte key (64 hex characters)`);
    return key;
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  log.warn("secrets.key_file_created", {
    path,
    advice: "bot credentials are encrypted with this file's key; in production set SWITCHBOARD_SECRET_KEY instead (docs/SECURITY.md)",
  });
  return key;
}
