import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, mkdir, open as openFile, readFile, rename, rm, writeFile } from "node:fs/promises";
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
  /** The bytes and their sniffed type, or null when no such blob is stored. Whole in memory: for what must decode them (sharp, speech to text). */
  get(sha256: string): Promise<{ bytes: Buffer; mimeType: string } | null>;
  /**
   * The blob to send as it is (a download): its type, size and a stream of its bytes,
   * read in chunks of at most READ_CHUNK_BYTES as the reader takes them, so one
   * download holds about one chunk whatever the file's size. Null when not stored. A
   * stream that is not read to its end must be cancelled (it holds a file on SQLite).
   */
  open(sha256: string): Promise<BlobStream | null>;
  /**
   * The model's copy of an image blob (lib/media/image.ts `imageForModel`), or null until
   * one is kept. Made once from the original and kept with it: removed with the blob.
   */
  getModelCopy(sha256: string): Promise<{ bytes: Buffer; mimeType: string } | null>;
  /** Keeps `bytes` as the model's copy of `sha256` (nothing happens when the blob is gone). */
  putModelCopy(sha256: string, bytes: Uint8Array, mimeType: string): Promise<void>;
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
export type BlobStream = { mimeType: string; sizeBytes: number; stream: ReadableStream<Uint8Array> };

/** What one read of a download takes from the disk or the database: a download holds this much, not the file. */
export const READ_CHUNK_BYTES = 256 * 1024;

/**
 * A pull stream over `sizeBytes` bytes that asks `read(offset, length)` for the next
 * chunk only when its reader wants one (no read ahead: highWaterMark 0), and calls
 * `close` once, at the end, on a failure or when the reader cancels.
 */
function chunkedStream(
  sizeBytes: number,
  read: (offset: number, length: number) => Promise<Uint8Array>,
  close: () => Promise<void> = async () => {},
): ReadableStream<Uint8Array> {
  let offset = 0;
  let closed = false;
  const closeOnce = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const length = Math.min(READ_CHUNK_BYTES, sizeBytes - offset);
          const chunk = length > 0 ? await read(offset, length) : new Uint8Array(0);
          // The file ended early or is gone (removed mid-download): an error, never a short file passed off as whole.
          if (length > 0 && chunk.byteLength === 0) throw new Error("the stored file ended before its size");
          offset += chunk.byteLength;
          if (chunk.byteLength > 0) controller.enqueue(chunk);
          if (offset >= sizeBytes) {
            await closeOnce();
            controller.close();
          }
        } catch (error) {
          await closeOnce().catch(() => {});
          controller.error(error);
        }
      },
      cancel: closeOnce,
    },
    { highWaterMark: 0 },
  );
}

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
  const modelCopyPathOf = (sha256: string) => `${pathOf(sha256)}.model`;
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
    async open(sha256) {
      if (!SHA256.test(sha256)) return null;
      const row = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { mimeType: true } });
      if (!row) return null;
      let file: FileHandle;
      try {
        file = await openFile(pathOf(sha256), "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
      // Open, the file is read to its end even if retention unlinks it meanwhile.
      const { size } = await file.stat().catch(async (error: unknown) => {
        await file.close();
        throw error;
      });
      const read = async (offset: number, length: number) => {
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await file.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      };
      return { mimeType: row.mimeType, sizeBytes: size, stream: chunkedStream(size, read, () => file.close()) };
    },
    async getModelCopy(sha256) {
      if (!SHA256.test(sha256)) return null;
      const row = await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { modelCopyType: true } });
      if (!row?.modelCopyType) return null;
      try {
        return { bytes: await readFile(modelCopyPathOf(sha256)), mimeType: row.modelCopyType };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async putModelCopy(sha256, bytes, mimeType) {
      if (!SHA256.test(sha256)) return;
      // In the blob's turn: never written after a removal of the blob took its files.
      await inTurn(sha256, async () => {
        if (!(await db.prisma.mediaBlob.findUnique({ where: { sha256 }, select: { sha256: true } }))) return;
        await writeWhole(modelCopyPathOf(sha256), bytes);
        await db.prisma.mediaBlob.updateMany({ where: { sha256 }, data: { modelCopyType: mimeType } });
      });
    },
    async removeUnreferenced(sha256s, putBefore = new Date()) {
      let removed = 0;
      for (const sha256 of await unreferenced(db, sha256s)) {
        await inTurn(sha256, async () => {
          const { count } = await db.prisma.mediaBlob.deleteMany({ where: { sha256, createdAt: { lte: putBefore } } });
          if (count === 0) return;
          await rm(pathOf(sha256), { force: true });
          await rm(modelCopyPathOf(sha256), { force: true });
          removed += 1;
        });
      }
      return removed;
    },
  };

  async function writeBlob(sha256: string, bytes: Uint8Array, mimeType: string): Promise<StoredBlob> {
    await writeWhole(pathOf(sha256), bytes);
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

/**
 * Written whole under a temporary name, then renamed: a reader never sees half a file,
 * and two writers of the same bytes both end with the same complete file.
 */
async function writeWhole(path: string, bytes: Uint8Array) {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString("hex")}.part`;
  await writeFile(temporary, bytes, { mode: 0o600 });
  await rename(temporary, path);
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
    // Reads go through the hand-written pool (node-postgres): Prisma's client took about
    // twice as long to hand over a large bytea (a 9 MB file: 4.1 s against 2.3 s, one loaded machine).
    async get(sha256) {
      if (!SHA256.test(sha256)) return null;
      const [row] = await db.read<{ mimeType: string; data: Buffer | null }>(
        'SELECT "mimeType", data FROM "MediaBlob" WHERE sha256 = ?',
        sha256,
      );
      if (!row?.data) return null;
      return { bytes: row.data, mimeType: row.mimeType };
    },
    async open(sha256) {
      if (!SHA256.test(sha256)) return null;
      const [row] = await db.read<{ mimeType: string; size: number }>(
        'SELECT "mimeType", octet_length(data) AS size FROM "MediaBlob" WHERE sha256 = ? AND data IS NOT NULL',
        sha256,
      );
      if (!row) return null;
      // One short query per chunk (a slice of the column: PostgreSQL reads only the TOAST chunks it
      // covers, as MediaBlob.data is stored uncompressed), so no connection is held between chunks.
      const read = async (offset: number, length: number) => {
        const [chunk] = await db.read<{ part: Buffer }>(
          'SELECT substring(data FROM ? FOR ?) AS part FROM "MediaBlob" WHERE sha256 = ?',
          offset + 1,
          length,
          sha256,
        );
        return chunk?.part ?? new Uint8Array(0);
      };
      return { mimeType: row.mimeType, sizeBytes: Number(row.size), stream: chunkedStream(Number(row.size), read) };
    },
    async getModelCopy(sha256) {
      if (!SHA256.test(sha256)) return null;
      const [row] = await db.read<{ modelCopyType: string | null; modelCopy: Buffer | null }>(
        'SELECT "modelCopyType", "modelCopy" FROM "MediaBlob" WHERE sha256 = ?',
        sha256,
      );
      if (!row?.modelCopyType || !row.modelCopy) return null;
      return { bytes: row.modelCopy, mimeType: row.modelCopyType };
    },
    async putModelCopy(sha256, bytes, mimeType) {
      if (!SHA256.test(sha256)) return;
      // The row goes with the blob: a removal takes the copy along.
      await db.prisma.mediaBlob.updateMany({ where: { sha256 }, data: { modelCopy: Buffer.from(bytes), modelCopyType: mimeType } });
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
