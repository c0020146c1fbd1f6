import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Database } from "../db/database";
import { isUniqueViolation } from "../db/errors";

/**
 * Where media bytes live: content-addressed by sha256, one copy per distinct file
 * (the same sticker sent a thousand times is stored once). Every MediaBlob row is
 * the record of one stored file; where its bytes are depends on the deployment:
 * - SQLite (the embedded default, one process): a file beside the database,
 *   `<db dir>/media/<first two hex>/<sha256>`, so the database stays small and no
 *   service is needed.
 * - PostgreSQL (several instances, no shared disk): in the row's `data`, so any
 *   instance serves any file.
 */
export interface BlobStore {
  /** Stores `bytes` (a no-op when the same bytes are already here) and says under which hash. */
  put(bytes: Uint8Array, mimeType: string): Promise<StoredBlob>;
  /** The bytes and their sniffed type, or null when no such blob is stored. */
  get(sha256: string): Promise<{ bytes: Buffer; mimeType: string } | null>;
  /**
   * Removes those of `sha256s` that no attachment refers to any more (after a
   * conversation's data was deleted) and were last put before `putBefore` (default
   * now), and says how many went. Every put stamps its blob (MediaBlob.createdAt is
   * "last put"), so the same bytes being stored for another message at this moment
   * (an upload, a download) are not taken from under it.
   */
  removeUnreferenced(sha256s: readonly string[], putBefore?: Date): Promise<number>;
}

export type StoredBlob = { sha256: string; sizeBytes: number };

const SHA256 = /^[0-9a-f]{64}$/;

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const stores = new WeakMap<Database, BlobStore>();

/**
 * The store for this database: files beside a SQLite file, rows on PostgreSQL. One per
 * handle, so the fetch job, the media route and retention see the same files (a
 * database in memory has its directory chosen once).
 */
export function blobStoreFor(db: Database): BlobStore {
  let store = stores.get(db);
  if (!store) {
    store = db.dialect === "postgresql" ? postgresBlobs(db) : sqliteBlobs(db, mediaDirOf(db));
    stores.set(db, store);
  }
  return store;
}

/** `<db dir>/media`; a database in memory (tests) gets a directory of its own under the OS temp dir. */
function mediaDirOf(db: Database): string {
  const file = db.sqliteFile;
  if (!file || file === ":memory:") return join(tmpdir(), `switchboard-media-${randomBytes(6).toString("hex")}`);
  return join(dirname(file), "media");
}

function sqliteBlobs(db: Database, root: string): BlobStore {
  const pathOf = (sha256: string) => join(root, sha256.slice(0, 2), sha256);
  // One process writes this disk (SQLite): a put and a removal of the same file take turns,
  // so a file is never unlinked after a put of the same bytes recorded it again.
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(sha256: string, fn: () => Promise<T>): Promise<T> => {
    const run = (turns.get(sha256) ?? Promise.resolve()).then(fn, fn);
    const settled = run.catch(() => {});
    turns.set(sha256, settled);
    void settled.then(() => {
      if (turns.get(sha256) === settled) turns.delete(sha256);
    });
    return run;
  };
  return {
    async put(bytes, mimeType) {
      const sha256 = sha256Of(bytes);
      return inTurn(sha256, () => writeBlob(sha256, bytes, mimeType));
    },
    async get(sha256) {
      if (!SHA256.test(sha256)) return null;
      const row = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { mimeType: true } });
      if (!row) return null;
      try {
        return { bytes: await readFile(pathOf(sha256)), mimeType: row.mimeType };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async removeUnreferenced(sha256s, putBefore = new Date()) {
      let removed = 0;
      for (const sha256 of await unreferenced(db, sha256s)) {
        await inTurn(sha256, async () => {
          const { count } = await db.prisma.mediaBlob.deleteMany({ where: { sha256, createdAt: { lte: putBefore } } });
          if (count === 0) return;
          await rm(pathOf(sha256), { force: true });
          removed += 1;
        });
      }
      return removed;
    },
  };

  async function writeBlob(sha256: string, bytes: Uint8Array, mimeType: string): Promise<StoredBlob> {
    const path = pathOf(sha256);
    await mkdir(dirname(path), { recursive: true });
    // Written whole under a temporary name, then renamed: a reader never sees half a file,
    // and two writers of the same bytes both end with the same complete file.
    const temporary = `${path}.${randomBytes(6).toString("hex")}.part`;
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, path);
    await ignoringRace(() =>
      db.prisma.mediaBlob.upsert({
        where: { sha256 },
        create: { sha256, mimeType, sizeBytes: bytes.byteLength },
        update: { createdAt: new Date() },
      }),
    );
    return { sha256, sizeBytes: bytes.byteLength };
  }
}

function postgresBlobs(db: Database): BlobStore {
  return {
    async put(bytes, mimeType) {
      const sha256 = sha256Of(bytes);
      await ignoringRace(() =>
        db.prisma.mediaBlob.upsert({
          where: { sha256 },
          create: { sha256, mimeType, sizeBytes: bytes.byteLength, data: Buffer.from(bytes) },
          update: { createdAt: new Date() },
        }),
      );
      return { sha256, sizeBytes: bytes.byteLength };
    },
    async get(sha256) {
      if (!SHA256.test(sha256)) return null;
      const row = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { mimeType: true, data: true } });
      if (!row?.data) return null;
      return { bytes: Buffer.from(row.data), mimeType: row.mimeType };
    },
    async removeUnreferenced(sha256s, putBefore = new Date()) {
      const gone = await unreferenced(db, sha256s);
      if (gone.length === 0) return 0;
      // The bytes are in the row: a put after `putBefore` re-stamped it and keeps it.
      const { count } = await db.prisma.mediaBlob.deleteMany({ where: { sha256: { in: gone }, createdAt: { lte: putBefore } } });
      return count;
    },
  };
}

/**
 * Prisma's upsert is a read then a write: two writers of the same bytes at once (the
 * same sticker from two chats, two instances) race, and the loser fails on the key
 * (P2002) or finds the row changed under it (P2025, "no record was found for an
 * upsert"). The row it wanted is there: that is success.
 */
async function ignoringRace(write: () => Promise<unknown>) {
  try {
    await write();
  } catch (error) {
    if (!isUniqueViolation(error) && (error as { code?: string }).code !== "P2025") throw error;
  }
}

/** Which of `sha256s` no attachment points at. */
async function unreferenced(db: Database, sha256s: readonly string[]): Promise<string[]> {
  const candidates = [...new Set(sha256s)].filter((sha256) => SHA256.test(sha256));
  if (candidates.length === 0) return [];
  const used = await db.prisma.attachment.findMany({
    where: { blobSha256: { in: candidates } },
    select: { blobSha256: true },
    distinct: ["blobSha256"],
  });
  const kept = new Set(used.map((row) => row.blobSha256));
  return candidates.filter((sha256) => !kept.has(sha256));
}
